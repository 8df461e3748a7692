package retrieval

import (
	"slices"
	"testing"

	"parley/internal/domain"
)

var testEntries = []domain.KnowledgeEntry{
	{Question: "How much does shipping cost?", Answer: "Shipping is free for orders over 50 EUR; below that it costs 4 EUR.", Lang: "en"},
	{Question: "How can I return an item?", Answer: "Send it back within 30 days with the return form from your account.", Lang: "en"},
	{Question: "What payment methods do you accept?", Answer: "We accept Visa, Mastercard, PayPal and bank transfer.", Lang: "en"},
	{Question: "When are you open?", Answer: "Our support answers Monday to Friday, 9:00-18:00, and the shop is open 24/7.", Lang: "en"},
	{Question: "Cât costă livrarea?", Answer: "Livrarea este gratuită pentru comenzile de peste 250 de lei.", Lang: "ro"},
	{Question: "Cum returnez un produs?", Answer: "Trimiteți produsul înapoi în 30 de zile, cu formularul de retur.", Lang: "ro"},
	{Question: "Сколько стоит доставка?", Answer: "Доставка бесплатная для заказов от 50 евро.", Lang: "ru"},
	{Question: "Как вернуть товар?", Answer: "Отправьте товар обратно в течение 30 дней.", Lang: "ru"},
	{Question: "Do you have a gift card?", Answer: "Yes: gift cards from 10 to 200 EUR, valid for a year."}, // every language
	{Kind: domain.KindDocument, Title: "Warranty", Lang: "en", Text: "# Warranty\n\n" +
		"Every product has a two-year warranty against manufacturing defects, counted from the delivery date.\n\n" +
		"## Claims\n\nTo make a warranty claim, email a photo of the defect and your order number to support; we repair or replace the product."},
}

// confident is the agent's threshold on Hit.Confidence.
const confident = 0.3

func TestSearchRanking(t *testing.T) {
	ix := Build(testEntries)
	tests := []struct {
		query, lang string
		want        string // the top hit's Passage
		confident   bool   // Confidence ≥ confident
	}{
		{"shipping price", "en", testEntries[0].Answer, true},
		{"how do I send back a product I returned", "en", testEntries[1].Answer, true},
		{"can I pay with PayPal?", "en", testEntries[2].Answer, true},
		{"opening hours", "en", testEntries[3].Answer, true},
		{"cat costa livrarea", "ro", testEntries[4].Answer, true},     // no diacritics
		{"returnarea produselor", "ro", testEntries[5].Answer, true},  // other word forms
		{"доставку сколько стоит", "ru", testEntries[6].Answer, true}, // other order and form
		{"gift card", "ru", testEntries[8].Answer, true},              // untagged entry, any language
		{"how do I claim the warranty for a defect", "en", "To make a warranty claim, email a photo of the defect and your order number to support; we repair or replace the product.", true},
		{"shiping costs", "en", testEntries[0].Answer, true}, // typo
		{"what is the weather on Mars", "en", "", false},
		{"do you sell submarines for shipping underwater", "en", testEntries[0].Answer, false},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, tt.lang, 3)
		if tt.want == "" {
			if len(hits) > 0 && hits[0].Confidence >= confident {
				t.Errorf("%q: confident hit %q (%.2f), want none", tt.query, hits[0].Passage, hits[0].Confidence)
			}
			continue
		}
		if len(hits) == 0 {
			t.Errorf("%q (%s): no hits", tt.query, tt.lang)
			continue
		}
		if hits[0].Passage != tt.want {
			t.Errorf("%q (%s): top hit %q, want %q", tt.query, tt.lang, hits[0].Passage, tt.want)
		}
		if c := hits[0].Confidence; (c >= confident) != tt.confident || c < 0 || c > 1 {
			t.Errorf("%q (%s): confidence %.2f, want confident=%v", tt.query, tt.lang, c, tt.confident)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("%q: hits not ordered by score: %v", tt.query, hits)
			}
		}
	}
}

func TestSearchLanguageFilter(t *testing.T) {
	ix := Build(testEntries)
	tests := []struct {
		query, lang string
		allowed     map[string]bool // languages hits may have
	}{
		{"shipping delivery livrarea доставка gift card", "en", map[string]bool{"en": true, "": true}},
		{"shipping delivery livrarea доставка gift card", "ro", map[string]bool{"ro": true, "": true}},
		{"shipping delivery livrarea доставка gift card", "ru", map[string]bool{"ru": true, "": true}},
		{"shipping delivery livrarea доставка gift card", "de", map[string]bool{"": true}},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, tt.lang, 20)
		if len(hits) == 0 {
			t.Errorf("%s: no hits", tt.lang)
		}
		for _, h := range hits {
			if !tt.allowed[h.Entry.Lang] {
				t.Errorf("%s search returned a %q entry: %q", tt.lang, h.Entry.Lang, h.Passage)
			}
		}
	}
}

func TestSearchTypos(t *testing.T) {
	ix := Build(testEntries)
	tests := []struct{ query, lang, want string }{
		{"pasword shiping", "en", testEntries[0].Answer}, // only "shiping" is close to a known word
		{"mastrecard", "en", testEntries[2].Answer},      // swap in a long word
		{"livrarae", "ro", testEntries[4].Answer},
		{"доставкп", "ru", testEntries[6].Answer},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, tt.lang, 1)
		if len(hits) == 0 || hits[0].Passage != tt.want {
			t.Errorf("%q: got %v, want %q", tt.query, hits, tt.want)
		}
	}
	// A word the vocabulary has is never "corrected" to a neighbour:
	// "cards" is known, so it does not also match "card"-less entries by typo.
	li := ix.langs["en"]
	for _, q := range []string{"shipping", "return"} {
		for _, qt := range li.queryTerms(q, "en") {
			if len(qt.alts) == 0 || qt.alts[0].match != 1 || li.stems[qt.alts[0].id] != Analyze(q, "en")[0] {
				t.Errorf("known word %q was treated as a typo: %+v", q, qt)
			}
		}
	}
}

func TestSearchEdgeCases(t *testing.T) {
	ix := Build(testEntries)
	for _, q := range []string{"", "???", "the and of", "x"} {
		if hits := ix.Search(q, "en", 3); len(hits) != 0 {
			t.Errorf("%q: %d hits, want none", q, len(hits))
		}
	}
	if hits := ix.Search("shipping", "en", 0); hits != nil {
		t.Errorf("k=0 gave hits")
	}
	empty := Build(nil)
	if hits := empty.Search("shipping", "en", 3); hits != nil {
		t.Errorf("empty index gave hits")
	}
	// A one-entry knowledge base still answers its own question confidently.
	one := Build([]domain.KnowledgeEntry{{Question: "Do you ship to Moldova?", Answer: "Yes."}})
	if hits := one.Search("do you ship to moldova", "en", 1); len(hits) != 1 || hits[0].Confidence < 0.9 {
		t.Errorf("one-entry index: %v", hits)
	}
}

// TestQueryExpansion checks the words a query word also matches: relatives
// Snowball keeps apart, derivations and help-desk synonyms, weaker than the
// word itself.
func TestQueryExpansion(t *testing.T) {
	entries := []domain.KnowledgeEntry{
		{Question: "What payment methods do you accept?", Answer: "Cards and cash on delivery.", Lang: "en"},
		{Question: "Do you ship abroad?", Answer: "Yes.", Lang: "en"},
		{Question: "Сколько стоит доставка?", Answer: "Бесплатно.", Lang: "ru"},
		{Question: "Можно ли отменить заказ?", Answer: "Да.", Lang: "ru"},
	}
	ix := Build(entries)
	tests := []struct {
		query, lang string
		want        []string // stems the query word matches, itself first when known
	}{
		{"pay", "en", []string{"payment"}},               // derivation
		{"delivery", "en", []string{"deliveri", "ship"}}, // synonym
		{"доставляете", "ru", []string{"доставк"}},       // relative
		{"отмена", "ru", []string{"отмен"}},              // relative of the written word
		{"заказать", "ru", []string{"заказ"}},            // relative
		{"weather", "en", nil},                           // nothing
	}
	for _, tt := range tests {
		li := ix.langs[tt.lang]
		terms := li.queryTerms(tt.query, tt.lang)
		if len(terms) != 1 {
			t.Fatalf("%q: %d terms", tt.query, len(terms))
		}
		var got []string
		for _, a := range terms[0].alts {
			got = append(got, li.stems[a.id])
			if li.stems[a.id] != Analyze(tt.query, tt.lang)[0] && a.match >= 1 {
				t.Errorf("%q: %q matches as strongly as the word itself", tt.query, li.stems[a.id])
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q matches %q, want %q", tt.query, got, tt.want)
		}
	}
}

// TestSearchConfidenceBothSides checks the confidence measures of a long
// question: context words the knowledge lacks must not drown a question
// that asks exactly what a stored question asks, while a coincidental
// match of part of a stored question stays unconfident.
func TestSearchConfidenceBothSides(t *testing.T) {
	ix := Build(testEntries)
	long := "I moved flats last month and my neighbour told me the courier was slow, so which payment methods do you accept?"
	hits := ix.Search(long, "en", 1)
	if len(hits) == 0 || hits[0].Passage != testEntries[2].Answer || hits[0].Confidence < confident {
		t.Errorf("%q: %+v, want a confident payment answer", long, hits)
	}
	for _, q := range []string{"do you sell submarines for shipping underwater", "do you sell shipping containers for boats"} {
		if hits := ix.Search(q, "en", 1); len(hits) > 0 && hits[0].Confidence >= confident {
			t.Errorf("%q: confident hit %q (%.2f), want none", q, hits[0].Passage, hits[0].Confidence)
		}
	}
}

// TestSearchNumbersWeighLess: a number in the visitor's circumstances must
// not pull the answer that merely mentions the same number.
func TestSearchNumbersWeighLess(t *testing.T) {
	ix := Build([]domain.KnowledgeEntry{
		{Question: "How can I track my parcel?", Answer: "We email a tracking link when the parcel leaves our warehouse."},
		{Question: "Assembly service", Answer: "Our team assembles furniture within 17 days of delivery for a fee."},
	})
	hits := ix.Search("where is my parcel, ordered 17 days ago", "en", 2)
	if len(hits) == 0 || hits[0].Question != "How can I track my parcel?" {
		t.Errorf("got %+v, want the tracking entry first", hits)
	}
}

// TestSearchMisspeltSynonym: a typo of a synonym-list word finds the
// knowledge base's own word for it.
func TestSearchMisspeltSynonym(t *testing.T) {
	ix := Build([]domain.KnowledgeEntry{
		{Question: "What warranty do your products have?", Answer: "Two years on everything."},
		{Question: "How much does delivery cost?", Answer: "Delivery is free."},
	})
	hits := ix.Search("how long is the gurantee", "en", 1)
	if len(hits) == 0 || hits[0].Question != "What warranty do your products have?" || hits[0].Confidence < confident {
		t.Errorf("got %+v, want a confident warranty hit", hits)
	}
	// Short words are not read as misspelt synonyms: "ждать" (wait) is one
	// edit from "сдать" (hand in, a synonym of "вернуть").
	if _, ok := synonymTypo(term{word: "ждать", stem: stem("ru", "ждать"), lang: "ru"}); ok {
		t.Error(`"ждать" taken for a misspelt synonym`)
	}
}
