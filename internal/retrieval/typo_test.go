package retrieval

import (
	"strings"
	"testing"
)

func TestOSADistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"shipping", "shipping", 0},
		{"shiping", "shipping", 1},   // deletion
		{"shippping", "shipping", 1}, // insertion
		{"shopping", "shipping", 1},  // substitution
		{"shpiping", "shipping", 1},  // adjacent swap
		{"livrara", "livrare", 1},
		{"доставкп", "доставка", 1},
		{"abc", "xyz", 3},
		{"", "abc", 3},
		// The longest token, and longer words (past the rows kept on the
		// stack): a swap at the end of each.
		{strings.Repeat("a", 38) + "bc", strings.Repeat("a", 38) + "cb", 1},
		{strings.Repeat("a", 43) + "bc", strings.Repeat("a", 43) + "cb", 1},
		{strings.Repeat("ab", 25), strings.Repeat("ab", 24) + "ba", 1},
	}
	for _, tt := range tests {
		if got := osaDistance([]rune(tt.a), []rune(tt.b), 5); got != tt.want {
			t.Errorf("osaDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := osaDistance([]rune("abcdefgh"), []rune("hgfedcba"), 1); got != 2 {
		t.Errorf("capped distance = %d, want limit+1 = 2", got)
	}
	// It runs for many candidate words per message: no allocation for
	// words of a token's length.
	a, b := []rune(strings.Repeat("x", maxTokenRunes)), []rune(strings.Repeat("y", maxTokenRunes))
	if n := testing.AllocsPerRun(100, func() { osaDistance(a, b, 2) }); n != 0 {
		t.Errorf("osaDistance allocates %.0f times per run", n)
	}
}

func TestFuzzyLookup(t *testing.T) {
	words := []string{"shipping", "shopping", "password", "delivery", "доставка", "card", "cart", "refund", "refunds", "warranty"}
	freq := map[string]int{"shipping": 5, "shopping": 1, "refund": 3, "refunds": 1}
	f := newFuzzy(words)
	better := func(a, b int32) bool { return freq[words[a]] > freq[words[b]] }
	tests := []struct {
		q, want string // want "" means no correction
	}{
		{"shiping", "shipping"},
		{"shpping", "shipping"}, // also 1 from shopping: the more frequent wins
		{"pasword", "password"},
		{"passwrod", "password"}, // swap
		{"delivry", "delivery"},
		{"dleivrey", "delivery"}, // two edits in a long word
		{"доствка", "доставка"},
		{"refnd", "refund"},
		{"warrenty", "warranty"},
		{"crd", ""},     // too short to correct
		{"carts", ""},   // "cart" is short: only a swap would count
		{"weather", ""}, // nothing close
	}
	for _, tt := range tests {
		id, ok := f.lookup(tt.q, better)
		got := ""
		if ok {
			got = words[id]
		}
		if got != tt.want {
			t.Errorf("lookup(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
