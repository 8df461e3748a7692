package agent

import (
	"context"
	"slices"
	"testing"

	"parley/internal/domain"
)

// The knowledge of the citation tests: an uploaded document, a page of a
// website source (as the crawler feeds it in), a Q&A entry and an untitled
// document with and without a heading.
var citeEntries = []domain.KnowledgeEntry{
	{Kind: domain.KindDocument, Title: "Warranty terms.pdf", Lang: "en", Text: "# Warranty\n\nAppliances have a two-year warranty. For a claim, email a photo of the defect."},
	domain.SourcePage{ID: "pg_1", URL: "https://shop.example/returns", Title: "Returns and refunds", Lang: "en",
		Text: "# Returns\n\nSend the product back within 30 days in its original packaging; we refund you within a week."}.Entry(),
	{Question: "What are your opening hours?", Answer: "We are open 9 to 17, Monday to Friday."},
	{Kind: domain.KindDocument, Lang: "en", Text: "# Gift wrapping\n\nGift wrapping costs 3 EUR per parcel, with a card written by hand."},
	{Kind: domain.KindDocument, Lang: "en", Text: "Loyalty points expire after twelve months without an order."},
	domain.SourcePage{ID: "pg_2", URL: "https://shop.example/stores", Lang: "en", Text: "Our stores in Cluj and Iasi open on Sundays from 10 to 16."}.Entry(),
}

func TestKBCitesSources(t *testing.T) {
	kb := staticKB(t, citeEntries)
	tests := []struct {
		name, text string
		want       []domain.SourceRef
	}{
		{"uploaded document: title only", "how do I make a warranty claim?", []domain.SourceRef{{Title: "Warranty terms.pdf"}}},
		{"page: title and URL", "can I send the product back and get a refund?", []domain.SourceRef{{Title: "Returns and refunds", URL: "https://shop.example/returns"}}},
		{"Q&A: nothing", "what are your opening hours?", nil},
		{"untitled document: its heading", "how much does gift wrapping cost?", []domain.SourceRef{{Title: "Gift wrapping"}}},
		{"untitled document without a heading: nothing", "when do loyalty points expire?", nil},
		{"untitled page: its URL", "are your stores in Cluj open on Sundays?", []domain.SourceRef{{Title: "https://shop.example/stores", URL: "https://shop.example/stores"}}},
		{"I don't know: nothing", "tell me about quantum chromodynamics", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := respond(t, kb, tt.text, "en")
			// Only the last one is not answered: the others must cite
			// (or not) an answer.
			if dontKnow := tt.name == "I don't know: nothing"; r.Unanswered != dontKnow {
				t.Fatalf("%q: %+v, want unanswered=%v", tt.text, r, dontKnow)
			}
			if !slices.Equal(r.Sources, tt.want) {
				t.Errorf("%q: answered %q citing %+v, want %+v", tt.text, r.Text, r.Sources, tt.want)
			}
		})
	}
}

func TestKBPassagesCite(t *testing.T) {
	kb := staticKB(t, citeEntries)
	got, err := kb.Passages(context.Background(), domain.Agent{ID: "ag_1"}, "warranty claim, or send the product back for a refund", "en", 4)
	if err != nil {
		t.Fatal(err)
	}
	bySource := map[domain.SourceRef]string{}
	for _, p := range got {
		bySource[p.Source] = p.Text
	}
	for _, want := range []domain.SourceRef{{Title: "Warranty terms.pdf"}, {Title: "Returns and refunds", URL: "https://shop.example/returns"}} {
		if _, ok := bySource[want]; !ok {
			t.Errorf("no passage cites %+v: %+v", want, got)
		}
	}
}

func TestSourcesDedupes(t *testing.T) {
	page := domain.SourceRef{Title: "Returns", URL: "https://shop.example/returns"}
	doc := domain.SourceRef{Title: "Warranty terms.pdf"}
	got := Sources([]Passage{
		{Text: "a", Source: page},
		{Text: "Q: x\nA: y"}, // Q&A: cites nothing
		{Text: "b", Source: doc},
		{Text: "c", Source: domain.SourceRef{Title: "Returns (section 2)", URL: page.URL}}, // the same page
		{Text: "d", Source: doc},
		{Text: "e", Source: domain.SourceRef{Title: "Warranty terms.pdf", URL: "https://shop.example/warranty"}}, // a page, not the file
	})
	want := []domain.SourceRef{page, doc, {Title: "Warranty terms.pdf", URL: "https://shop.example/warranty"}}
	if !slices.Equal(got, want) {
		t.Errorf("Sources = %+v, want %+v", got, want)
	}
	if got := Sources([]Passage{{Text: "Q: x\nA: y"}}); got != nil {
		t.Errorf("Sources of Q&A only = %+v, want nil", got)
	}
}
