package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/retrieval/retrievaltest"
)

var kbEntries = []domain.KnowledgeEntry{
	{Question: "What are your opening hours?", Answer: "We are open 9 to 17, Monday to Friday."},
	{Question: "How much does shipping cost?", Answer: "Shipping is free over 50 EUR."},
	{Question: "Cât costă livrarea?", Answer: "Livrarea este gratuită peste 50 EUR.", Lang: "ro"},
	{Question: "Сколько стоит доставка?", Answer: "Доставка бесплатна от 50 евро.", Lang: "ru"},
}

func staticKB(tb testing.TB, entries []domain.KnowledgeEntry) *KB {
	kb := NewKB(StaticKnowledge(entries), KBOptions{})
	tb.Cleanup(kb.Stop)
	return kb
}

func respond(t *testing.T, kb *KB, text, lang string) Reply {
	t.Helper()
	r, err := kb.Respond(context.Background(), Request{Agent: domain.Agent{ID: "ag_1"}, Text: text, Lang: lang})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestKBAnswers(t *testing.T) {
	kb := staticKB(t, kbEntries)
	tests := []struct {
		text, lang, want string
		unanswered       bool
	}{
		{"when are you open? opening hours please", "en", kbEntries[0].Answer, false},
		{"shipping cost?", "en", kbEntries[1].Answer, false},
		{"cat costa livrarea", "ro", kbEntries[2].Answer, false}, // no diacritics
		{"сколько стоит доставка", "ru", kbEntries[3].Answer, false},
		{"сколько стоит доставкa", "ru", kbEntries[3].Answer, false}, // a Latin "a" typed by mistake
		{"tell me about quantum chromodynamics", "en", phrasesFor("en").dontKnow, true},
		{"???", "ru", phrasesFor("ru").dontKnow, true},
	}
	for _, tt := range tests {
		r := respond(t, kb, tt.text, tt.lang)
		if r.Text != tt.want || r.Unanswered != tt.unanswered {
			t.Errorf("%q (%s): got %q unanswered=%v, want %q unanswered=%v", tt.text, tt.lang, r.Text, r.Unanswered, tt.want, tt.unanswered)
		}
	}
}

func TestKBDontKnow(t *testing.T) {
	kb := staticKB(t, kbEntries)
	tests := []struct{ lang, text, human string }{
		{"en", "what is the weather on Mars", "Talk to a human"},
		{"ro", "ce vreme va fi mâine pe Marte", "Vorbește cu un om"},
		{"ru", "какая погода на Марсе", "Поговорить с человеком"},
		{"de", "wie ist das Wetter auf dem Mars", "Talk to a human"}, // no texts in German: English
	}
	for _, tt := range tests {
		r := respond(t, kb, tt.text, tt.lang)
		if !r.Unanswered || r.Text != phrasesFor(tt.lang).dontKnow || len(r.Options) == 0 || r.Options[0] != tt.human {
			t.Errorf("%s: %+v, want the don't-know reply offering %q", tt.lang, r, tt.human)
		}
	}
}

func TestKBRelatedQuestions(t *testing.T) {
	entries := []domain.KnowledgeEntry{
		{Question: "How much does shipping cost?", Answer: "Shipping is free over 50 EUR.", Lang: "en"},
		{Question: "How long does shipping take?", Answer: "Two to three working days.", Lang: "en"},
		{Question: "Do you offer express shipping?", Answer: "Yes, next day for 10 EUR.", Lang: "en"},
		{Question: "What are your opening hours?", Answer: "9 to 17, Monday to Friday.", Lang: "en"},
		{Question: "Cât durează livrarea prin shipping express?", Answer: "O zi.", Lang: "ro"},
	}
	kb := staticKB(t, entries)
	r := respond(t, kb, "shipping", "en")
	if r.Unanswered || len(r.Options) != 2 {
		t.Fatalf("reply %+v, want an answer and the two other shipping questions", r)
	}
	answered := slices.IndexFunc(entries, func(e domain.KnowledgeEntry) bool { return e.Answer == r.Text })
	for _, o := range r.Options {
		i := slices.IndexFunc(entries, func(e domain.KnowledgeEntry) bool { return e.Question == o })
		if i < 0 || i == answered || entries[i].Lang != "en" || !strings.Contains(o, "shipping") {
			t.Errorf("option %q: not a related English question other than the answered one", o)
		}
	}
	// An exact question has no close rivals: nothing else is offered.
	if r := respond(t, kb, "What are your opening hours?", "en"); r.Text != entries[3].Answer || r.Options != nil {
		t.Errorf("opening hours: %+v, want the answer without options", r)
	}
}

func TestKBDocuments(t *testing.T) {
	doc := domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "Help", Lang: "en", Text: "# Returns\n\n" +
		"Send the product back within 30 days in its original packaging; we refund you within a week.\n\n" +
		"# Warranty\n\nAppliances have a two-year warranty. For a claim, email a photo of the defect."}
	kb := staticKB(t, append([]domain.KnowledgeEntry{doc}, kbEntries...))
	r := respond(t, kb, "how do I make a warranty claim?", "en")
	if r.Text != "Appliances have a two-year warranty. For a claim, email a photo of the defect." || r.Unanswered {
		t.Errorf("got %+v, want the warranty passage", r)
	}
}

func TestKBPassages(t *testing.T) {
	doc := domain.KnowledgeEntry{Kind: domain.KindDocument, Title: "Help", Text: "# Warranty\n\nAppliances have a two-year warranty."}
	kb := staticKB(t, append([]domain.KnowledgeEntry{doc}, kbEntries...))
	a := domain.Agent{ID: "ag_1"}
	tests := []struct {
		text, lang string
		k          int
		want       []string
	}{
		{"shipping cost", "en", 3, []string{"Q: How much does shipping cost?\nA: Shipping is free over 50 EUR."}},
		{"warranty for appliances", "en", 3, []string{"Warranty\nAppliances have a two-year warranty."}},
		{"cât costă livrarea", "ro", 1, []string{"Q: Cât costă livrarea?\nA: Livrarea este gratuită peste 50 EUR."}},
		{"quantum chromodynamics", "en", 3, nil},
	}
	for _, tt := range tests {
		passages, err := kb.Passages(context.Background(), a, tt.text, tt.lang, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range passages {
			got = append(got, p.Text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Passages(%q, %s, %d) = %q, want %q", tt.text, tt.lang, tt.k, got, tt.want)
		}
	}
	failing := newTestKB(t, closedStore(t), KBOptions{})
	if _, err := failing.Passages(context.Background(), a, "x", "en", 3); err == nil {
		t.Error("Passages answered from a knowledge base it could not read")
	}
}

// BenchmarkRespond1000 answers from a knowledge base of 1,000 entries, as
// a visitor's message does once the agent's index is built.
func BenchmarkRespond1000(b *testing.B) {
	entries := retrievaltest.Entries(1000, 1)
	queries := retrievaltest.Queries(entries, 512, 1)
	kb := staticKB(b, entries)
	a := domain.Agent{ID: "ag_1"}
	if _, err := kb.Respond(context.Background(), Request{Agent: a, Text: "warm up", Lang: "en"}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		if _, err := kb.Respond(context.Background(), Request{Agent: a, Text: q.Text, Lang: q.Lang}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// A visitor may write in another language than the widget's: the message's
// script decides where the knowledge is searched and what language the
// agent answers in (messageLang).
func TestKBAnswersInTheMessagesLanguage(t *testing.T) {
	kb := staticKB(t, kbEntries)
	tests := []struct{ text, lang, want string }{
		{"сколько стоит доставка", "en", kbEntries[3].Answer},            // Cyrillic on an English page
		{"сколько стоит доставка", "ro", kbEntries[3].Answer},            // and on a Romanian one
		{"cât costă livrarea și cât durează", "ru", kbEntries[2].Answer}, // Romanian letters in two words
		{"что такое квантовая хромодинамика", "en", phrasesFor("ru").dontKnow},
		{"what is quantum chromodynamics", "ru", phrasesFor("en").dontKnow},
		// Between English and Romanian the conversation's language stands:
		// a place name with Romanian letters does not make English Romanian.
		{"how much is shipping to Bălți", "en", kbEntries[1].Answer},
	}
	for _, tt := range tests {
		if r := respond(t, kb, tt.text, tt.lang); r.Text != tt.want {
			t.Errorf("%q (%s): got %q, want %q", tt.text, tt.lang, r.Text, tt.want)
		}
	}
}

func TestMessageLang(t *testing.T) {
	tests := []struct{ text, lang, want string }{
		{"привет, где мой заказ", "en", "ru"},
		{"where is my order", "ru", "en"},
		{"unde este comanda mea", "ru", "en"}, // no Romanian letters: cannot tell
		{"unde este comanda mea? vă rog să mă ajutați", "ru", "ro"},
		{"unde este comanda mea", "ro", "ro"},
		{"where is my order", "ro", "ro"},
		{"1234", "ru", "ru"},
		{"мой заказ order 1234", "en", "ru"},
		{"заказ order", "en", "en"}, // a tie keeps the conversation's
	}
	for _, tt := range tests {
		if got := messageLang(tt.text, tt.lang); got != tt.want {
			t.Errorf("messageLang(%q, %s) = %s, want %s", tt.text, tt.lang, got, tt.want)
		}
	}
}
