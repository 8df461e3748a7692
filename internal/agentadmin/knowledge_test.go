package agentadmin

import (
	"errors"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

func wantProblem(t *testing.T, what string, err error, p domain.KnowledgeProblem) {
	t.Helper()
	var ke *domain.KnowledgeError
	if !errors.As(err, &ke) || ke.Problem != p {
		t.Errorf("%s: error %v, want a *domain.KnowledgeError %q", what, err, p)
	}
}

func wantLimit(t *testing.T, what string, err error, p domain.KnowledgeProblem) {
	t.Helper()
	var le *domain.KnowledgeLimitError
	if !errors.As(err, &le) || le.Problem != p {
		t.Errorf("%s: error %v, want a *domain.KnowledgeLimitError %q", what, err, p)
	}
}

func TestAddKnowledge(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{Bounds: domain.Bounds{Knowledge: domain.KnowledgeLimits{MaxItems: 3, MaxChars: 100}}})
		ctx := t.Context()
		ag := f.agent("Helper")
		e, err := f.svc.AddKnowledge(ctx, f.account, ag.ID, domain.KnowledgeEntry{Question: " Hours? ", Answer: " 9 to 5 ", Lang: "RO", ID: "kb_mine"})
		if err != nil || e.ID == "" || e.ID == "kb_mine" || e.Question != "Hours?" || e.Answer != "9 to 5" || e.Lang != "ro" || e.Kind != domain.KindQA {
			t.Fatalf("AddKnowledge = %+v, %v; want it checked, normalised and given a new id", e, err)
		}
		if told := f.inv.told(); len(told) != 1 || told[0] != ag.ID {
			t.Fatalf("invalidations after an addition: %v", told)
		}

		for _, tt := range []struct {
			what string
			e    domain.KnowledgeEntry
			p    domain.KnowledgeProblem
		}{
			{"no answer", domain.KnowledgeEntry{Question: "q", Answer: " "}, domain.KnowledgeQAMissing},
			{"a document without text", domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "t"}, domain.KnowledgeDocMissing},
			{"an unknown kind", domain.KnowledgeEntry{Kind: "faq", Question: "q", Answer: "a"}, domain.KnowledgeBadKind},
			{"a NUL", domain.KnowledgeEntry{Question: "q\x00", Answer: "a"}, domain.KnowledgeNUL},
			{"too long", domain.KnowledgeEntry{Question: strings.Repeat("q", domain.MaxEntryChars+1), Answer: "a"}, domain.KnowledgeQALong},
		} {
			_, err := f.svc.AddKnowledge(ctx, f.account, ag.ID, tt.e)
			wantProblem(t, tt.what, err, tt.p)
		}
		// Bounds: characters, then items.
		_, err = f.svc.AddKnowledge(ctx, f.account, ag.ID, domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "Long", Text: strings.Repeat("x", 100)})
		wantLimit(t, "past the characters", err, domain.KnowledgeTooLarge)
		for range 2 {
			if _, err := f.svc.AddKnowledge(ctx, f.account, ag.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"}); err != nil {
				t.Fatal(err)
			}
		}
		_, err = f.svc.AddKnowledge(ctx, f.account, ag.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"})
		wantLimit(t, "past the items", err, domain.KnowledgeTooMany)

		other := newAccount(t, st)
		if _, err := f.svc.AddKnowledge(ctx, other, ag.ID, domain.KnowledgeEntry{Question: "q", Answer: "a"}); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("another account adds: %v", err)
		}
		if _, err := f.svc.Knowledge(ctx, other, ag.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("another account lists: %v", err)
		}
		kb, err := f.svc.Knowledge(ctx, f.account, ag.ID)
		if err != nil || len(kb) != 3 {
			t.Errorf("knowledge: %d items, %v; want 3", len(kb), err)
		}
		if told := f.inv.told(); len(told) != 3 {
			t.Errorf("invalidations: %v; want one per addition made", told)
		}
	})
}

func TestUpdateAndDeleteKnowledge(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{Bounds: domain.Bounds{Knowledge: domain.KnowledgeLimits{MaxItems: 10, MaxChars: 60}}})
		ctx := t.Context()
		ag, sibling := f.agent("Helper"), f.agent("Sibling")
		doc, err := f.svc.AddKnowledge(ctx, f.account, ag.ID, domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "Returns", Text: "Within 30 days.", Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		told := len(f.inv.told())

		// Only the fields sent change; the kind stays.
		text := "  Within 14 days.  "
		got, err := f.svc.UpdateKnowledge(ctx, f.account, ag.ID, doc.ID, KnowledgePatch{Text: &text})
		if err != nil || got.ID != doc.ID || got.Kind != domain.KindDocument || got.Title != "Returns" || got.Text != "Within 14 days." || got.Lang != "en" {
			t.Fatalf("UpdateKnowledge = %+v, %v", got, err)
		}
		if n := len(f.inv.told()); n != told+1 {
			t.Fatalf("an update told the cache %d times", n-told)
		}
		// Refusals: an invalid result, a question on a document, past the
		// bounds, another agent's item, another account.
		empty, q, long := " ", "Why?", strings.Repeat("y", 60)
		_, err = f.svc.UpdateKnowledge(ctx, f.account, ag.ID, doc.ID, KnowledgePatch{Text: &empty})
		wantProblem(t, "emptied text", err, domain.KnowledgeDocMissing)
		_, err = f.svc.UpdateKnowledge(ctx, f.account, ag.ID, doc.ID, KnowledgePatch{Question: &q})
		wantProblem(t, "a question on a document", err, domain.KnowledgeDocFields)
		_, err = f.svc.UpdateKnowledge(ctx, f.account, ag.ID, doc.ID, KnowledgePatch{Text: &long})
		wantLimit(t, "past the characters", err, domain.KnowledgeTooLarge)
		if _, err := f.svc.UpdateKnowledge(ctx, f.account, sibling.ID, doc.ID, KnowledgePatch{Text: &text}); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("the item through another agent: %v", err)
		}
		other := newAccount(t, st)
		if _, err := f.svc.UpdateKnowledge(ctx, other, ag.ID, doc.ID, KnowledgePatch{Text: &text}); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("the item from another account: %v", err)
		}
		if item, _ := f.svc.KnowledgeItem(ctx, f.account, ag.ID, doc.ID); item.Text != "Within 14 days." {
			t.Errorf("refused updates changed the item: %+v", item)
		}

		if err := f.svc.DeleteKnowledge(ctx, other, ag.ID, doc.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("delete from another account: %v", err)
		}
		if err := f.svc.DeleteKnowledge(ctx, f.account, sibling.ID, doc.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("delete through another agent: %v", err)
		}
		if n := len(f.inv.told()); n != told+1 {
			t.Fatalf("refusals told the cache: %v", f.inv.told())
		}
		if err := f.svc.DeleteKnowledge(ctx, f.account, ag.ID, doc.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.KnowledgeItem(ctx, f.account, ag.ID, doc.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("the deleted item: %v", err)
		}
		if err := f.svc.DeleteKnowledge(ctx, f.account, ag.ID, doc.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("delete again: %v", err)
		}
		if told := f.inv.told(); len(told) != 3 || told[2] != ag.ID {
			t.Errorf("invalidations: %v; want the addition, the update and the deletion", told)
		}
	})
}

func TestKnowledgePatchApply(t *testing.T) {
	t.Parallel()
	e := domain.KnowledgeEntry{ID: "kb_1", Kind: domain.KindQA, Question: "q", Answer: "a", Lang: "en"}
	answer, lang := "b", ""
	got := KnowledgePatch{Answer: &answer, Lang: &lang}.Apply(e)
	want := domain.KnowledgeEntry{ID: "kb_1", Kind: domain.KindQA, Question: "q", Answer: "b"}
	if got != want {
		t.Errorf("Apply = %+v, want %+v", got, want)
	}
}
