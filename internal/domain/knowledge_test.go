package domain

import (
	"errors"
	"strings"
	"testing"

	"parley/web/i18n"
)

func TestCheckKnowledge(t *testing.T) {
	long := func(n int) string { return strings.Repeat("ș", n) } // characters, not bytes
	tests := []struct {
		name string
		in   KnowledgeEntry
		want KnowledgeProblem // "" = valid
	}{
		{"qa", KnowledgeEntry{Question: " Q ", Answer: "A", Lang: " RO "}, ""},
		{"document", KnowledgeEntry{Kind: KindDocument, Title: "T", Text: "text"}, ""},
		{"qa at the limit", KnowledgeEntry{Question: long(MaxEntryChars), Answer: "A"}, ""},
		{"bad language", KnowledgeEntry{Question: "Q", Answer: "A", Lang: "de"}, KnowledgeBadLang},
		{"bad kind", KnowledgeEntry{Kind: "faq", Question: "Q", Answer: "A"}, KnowledgeBadKind},
		{"no answer", KnowledgeEntry{Question: "Q", Answer: "  "}, KnowledgeQAMissing},
		{"qa too long", KnowledgeEntry{Question: "Q", Answer: long(MaxEntryChars + 1)}, KnowledgeQALong},
		{"qa with text", KnowledgeEntry{Question: "Q", Answer: "A", Text: "x"}, KnowledgeQAFields},
		{"document without text", KnowledgeEntry{Kind: KindDocument, Title: "T"}, KnowledgeDocMissing},
		{"document with answer", KnowledgeEntry{Kind: KindDocument, Text: "x", Answer: "A"}, KnowledgeDocFields},
		{"title too long", KnowledgeEntry{Kind: KindDocument, Title: long(MaxTitleChars + 1), Text: "x"}, KnowledgeDocLong},
		{"not UTF-8", KnowledgeEntry{Question: "Q\xff", Answer: "A"}, KnowledgeNotUTF8},
		{"NUL", KnowledgeEntry{Kind: KindDocument, Text: "\x00" + long(10)}, KnowledgeNUL},
	}
	for _, tt := range tests {
		_, err := CheckKnowledge(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		var ke *KnowledgeError
		var inv *InvalidError
		if !errors.As(err, &ke) || ke.Problem != tt.want {
			t.Errorf("%s: error %v, want problem %q", tt.name, err, tt.want)
		} else if !errors.As(err, &inv) || inv.Msg == "" || inv.Msg != err.Error() {
			t.Errorf("%s: %v is not an InvalidError with its text (a 400)", tt.name, err)
		}
	}
	e, _ := CheckKnowledge(KnowledgeEntry{ID: "k1", Question: " Q ", Answer: " A ", Lang: " RU "})
	if e.ID != "" || e.Kind != KindQA || e.Question != "Q" || e.Answer != "A" || e.Lang != "ru" {
		t.Errorf("normalised to %+v", e)
	}
}

// Every language Parley speaks is a knowledge language, and the 400 names
// them as docs/api.md does.
func TestKnowledgeLanguages(t *testing.T) {
	t.Parallel()
	for _, l := range i18n.Languages {
		if _, err := CheckKnowledge(KnowledgeEntry{Question: "Q", Answer: "A", Lang: l}); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
	_, err := CheckKnowledge(KnowledgeEntry{Question: "Q", Answer: "A", Lang: "de"})
	if err == nil || err.Error() != "knowledge lang must be en, ro, ru or empty" {
		t.Errorf("de: %v", err)
	}
}
