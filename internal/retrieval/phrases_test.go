package retrieval

import (
	"slices"
	"strings"
	"testing"

	"parley/internal/domain"
)

// TestPhrases: multi-word expressions become the word the knowledge would
// use, in the right language only, with other words kept in place.
func TestPhrases(t *testing.T) {
	words := func(tokens []token) string {
		var out []string
		for _, tk := range tokens {
			out = append(out, tk.word)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		lang, in, want string
	}{
		{"en", "can I send it back", "can return it"},                        // a gap of one word, kept (one-letter words are never tokens)
		{"en", "can I send the lamp back", "can return the lamp"},            // a gap of two
		{"en", "can I send the old lamp back", "can send the old lamp back"}, // gap of three: no phrase
		{"en", "my kettle stopped working", "my kettle broken"},
		{"en", "I want to close my account", "want to delete account"},
		{"en", "when do you close on Sunday", "hours do you on sunday"},
		{"en", "do you ship to Italy", "do you ship to italy abroad"}, // "+": kept and added
		{"en", "where is my parcel", "track is"},
		{"en", "where can I find the invoice for my order", "where can find the invoice for my order"}, // too far apart
		{"ro", "nu mai pornește", "defect"},
		{"ro", "pot să o dau înapoi", "pot să returna"},
		{"ro", "când primesc banii înapoi", "cand primesc rambursare bani"},
		{"ru", "чайник перестал включаться", "чайник сломался"},
		{"ru", "как закрыть учётную запись", "как удалить аккаунт"}, // two rules in turn
		{"ru", "где моя посылка", "отследить"},
		{"ru", "где моя пасылка", "отследить"},             // a later word misspelt
		{"en", "where is my pakage", "track is"},           // likewise
		{"en", "wher is my package", "wher is my package"}, // the first word must be right
		{"en", "can I send it bak", "can send it bak"},     // too short to be taken for "back"
		{"en", "где моя посылка", "отследить"},             // Cyrillic follows Russian rules in any text
		{"ro", "send it back", "send it back"},             // English rules do not apply to Romanian text
	}
	for _, tt := range tests {
		an := analyzer{lang: tt.lang}
		tokens := rewritePhrases(tokenize(tt.in), stemLang(scriptLatin, an.lang))
		tokens = rewritePhrases(tokens, "ru")
		if got := words(tokens); got != Fold(tt.want) {
			t.Errorf("%s %q → %q, want %q", tt.lang, tt.in, got, Fold(tt.want))
		}
	}
}

// TestPhrasesInSearch: a visitor's phrase finds the entry that uses the
// knowledge's word, and the phrase no longer reads as its parts.
func TestPhrasesInSearch(t *testing.T) {
	var entries []domain.KnowledgeEntry
	for _, qa := range [][2]string{
		{"How do I return a product?", "Returns are accepted within 30 days."},
		{"How much does shipping cost?", "We send parcels for 5 EUR."},
		{"How do I delete my account?", "Choose Delete account in the settings."},
		{"What are your opening hours?", "We are open from 9 to 18 and close at 18 on Saturdays."},
	} {
		entries = append(entries, domain.KnowledgeEntry{Question: qa[0], Answer: qa[1], Lang: "en"})
	}
	ix := Build(entries)
	for q, want := range map[string]string{
		"can I send the lamp back?":   "How do I return a product?",
		"how do I close my account?":  "How do I delete my account?",
		"what time do you close?":     "What are your opening hours?",
		"do you send parcels abroad?": "How much does shipping cost?",
	} {
		hits := ix.Search(q, "en", 1)
		if len(hits) == 0 || hits[0].Question != want {
			t.Errorf("%q: got %v, want %q", q, questions(hits), want)
		}
	}
}

func questions(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Question)
	}
	return slices.Clip(out)
}
