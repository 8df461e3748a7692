package retrieval

import (
	"testing"

	"parley/internal/domain"
)

func TestUnitsAndVisible(t *testing.T) {
	t.Parallel()
	ix := Build([]domain.KnowledgeEntry{
		{Question: "Do you ship abroad?", Answer: "Yes, worldwide.", Lang: "en"},
		{Question: "Livrați în străinătate?", Answer: "Da, peste tot.", Lang: "ro"},
		{Question: "Opening hours?", Answer: "9 to 5."},
	})
	if ix.Units() != 3 {
		t.Fatalf("Units = %d", ix.Units())
	}
	for _, h := range ix.Search("ship abroad", "en", 3) {
		if u := ix.Unit(h.Unit); u.Question != h.Question || u.Passage != h.Passage {
			t.Errorf("hit %q has unit %d = %q", h.Question, h.Unit, u.Question)
		}
	}
	en, ro := ix.Visible("en"), ix.Visible("ro")
	if len(en) != 2 || len(ro) != 2 || ix.Unit(int(en[0])).Question != "Do you ship abroad?" || ix.Unit(int(ro[0])).Question != "Livrați în străinătate?" {
		t.Fatalf("Visible en %v, ro %v", en, ro)
	}
	if ix.Unit(int(en[1])).Question != "Opening hours?" {
		t.Fatalf("an untagged entry is not visible in en: %v", en)
	}
}
