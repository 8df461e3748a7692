package retrieval

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	got := Terms("Где мой заказ? Shipping to Italy", "en")
	// Cyrillic words take Russian's stemmer whatever the language; the
	// phrase rules add "abroad" after Italy.
	want := []Term{{"отследить", "отслед", "ru"}, {"shipping", "ship", "en"}, {"italy", "itali", "en"}, {"abroad", "abroad", "en"}}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %v, want %v", got, want)
	}
	var ta TermAnalyzer
	for range 2 { // the second time from its stem cache
		if again := ta.Terms("Где мой заказ? Shipping to Italy", "en"); !slices.Equal(again, want) {
			t.Errorf("TermAnalyzer.Terms = %v, want %v", again, want)
		}
	}
	if s := Analyze("Где мой заказ? Shipping to Italy", "en"); len(s) != len(want) || s[1] != "ship" {
		t.Errorf("Analyze = %v, want the stems of %v", s, want)
	}
}

func TestSynonyms(t *testing.T) {
	t.Parallel()
	if s := Synonyms("ship", "en"); !slices.Contains(s, "courier") {
		t.Errorf("Synonyms(ship) = %v, want courier among them", s)
	}
	if s := Synonyms("ship", "ro"); s != nil {
		t.Errorf("Synonyms(ship, ro) = %v, want none", s)
	}
}

// TestRelated: Related is the search's rule both ways, and related stems
// always share a RelativeKey.
func TestRelated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"deliv", "deliveri", true},
		{"pay", "payment", true},
		{"доставля", "доставк", true},
		{"deliv", "deliv", false},          // the same stem is not a relative
		{"order", "ordin", false},          // four letters in common
		{"pay", "paypal", false},           // not a derivational suffix
		{"abcdefghij", "abcdexyzw", false}, // five of nine letters: too little
	} {
		for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if got := Related(ab[0], ab[1]); got != c.want {
				t.Errorf("Related(%q, %q) = %v, want %v", ab[0], ab[1], got, c.want)
			}
		}
		if c.want && !slices.ContainsFunc(RelativeKeys(c.a), func(k string) bool { return slices.Contains(RelativeKeys(c.b), k) }) {
			t.Errorf("%q and %q share no key: %v, %v", c.a, c.b, RelativeKeys(c.a), RelativeKeys(c.b))
		}
	}
	stems := []string{"deliv", "deliveri", "payment", "pay", "доставля", "доставк"}
	r := newRelatives(stems)
	for _, q := range []string{"deliv", "pay", "доставк"} {
		for _, id := range r.lookup(q, nil) {
			if !Related(q, stems[id]) {
				t.Errorf("the search takes %q for a relative of %q, Related does not", stems[id], q)
			}
		}
	}
}
