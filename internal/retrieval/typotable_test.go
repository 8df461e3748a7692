package retrieval

import (
	"slices"
	"testing"
)

// Within the bound, every word has a place; past it, the most frequent
// ones (equal counts in id order) up to the first that does not fit.
func TestTableWordsBound(t *testing.T) {
	t.Parallel()
	words := []string{"delivery", "shipping", "warranty", "returns", "parcel", "invoice"}
	count := []int32{1, 5, 1, 3, 9, 1}
	size := func(w string) int { n := len([]rune(w)); return deletionCount(n, maxEdits(n)) }
	total := 0
	for _, w := range words {
		total += size(w)
	}
	if keep := tableWords(words, count, total); keep != nil {
		t.Fatalf("all fit, yet only %v have a place", keep)
	}
	// Room for parcel (9), shipping (5), returns (3) and delivery, the
	// first of the words seen once: warranty then does not fit, and
	// invoice, though it would, comes after it.
	limit := size("parcel") + size("shipping") + size("returns") + size("delivery") + size("invoice")
	want := []bool{true, true, false, true, true, false}
	if keep := tableWords(words, count, limit); !slices.Equal(keep, want) {
		t.Fatalf("tableWords = %v, want %v", keep, want)
	}
}

// A bounded table finds the typos of the words it keeps, not of the others,
// and carried over from an earlier vocabulary it holds the keys a fresh one
// does.
func TestTypoTableBound(t *testing.T) {
	t.Parallel()
	words := []string{"delivery", "shipping", "warranty"}
	ids := map[string]int32{"delivery": 0, "shipping": 1, "warranty": 2}
	count := []int32{2, 7, 1}
	n := deletionCount(8, 2)
	f := typoTable(words, ids, count, 2*n, nil, nil)
	better := func(a, b int32) bool { return a < b }
	if id, ok := f.lookup("shiping", better); !ok || id != 1 {
		t.Errorf("shiping: %d %v, want shipping", id, ok)
	}
	if id, ok := f.lookup("warrenty", better); ok {
		t.Errorf("warrenty found %q, but warranty has no place", words[id])
	}

	// The next build: warranty gone, "returns" new, ids changed.
	next := []string{"returns", "shipping", "delivery"}
	nextIDs := map[string]int32{"returns": 0, "shipping": 1, "delivery": 2}
	nextCount := []int32{4, 7, 2}
	carried := typoTable(next, nextIDs, nextCount, 3*n, f, words)
	fresh := typoTable(next, nextIDs, nextCount, 3*n, nil, nil)
	if !sameFuzzy(carried, fresh) {
		t.Fatal("a table carried over differs from a fresh one")
	}
	for q, want := range map[string]int32{"retruns": 0, "shiping": 1, "delivry": 2} {
		if id, ok := carried.lookup(q, better); !ok || id != want {
			t.Errorf("%s: %d %v, want %q", q, id, ok, next[want])
		}
	}
}

// sortKeys orders keys by their hash as a full sort does; keys of one hash
// may come in any order.
func TestSortKeys(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 5, 1023, 5000} {
		keys := make([]uint64, n)
		x := uint64(88172645463325252)
		for i := range keys {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			keys[i] = x
			if i%7 == 0 && i > 0 {
				keys[i] = keys[i-1]>>idBits<<idBits | x&(1<<idBits-1) // the same hash as the one before
			}
		}
		want := slices.Sorted(slices.Values(keys))
		sortKeys(keys)
		for i := 1; i < n; i++ {
			if keys[i-1]>>idBits > keys[i]>>idBits {
				t.Fatalf("n=%d: key %d is out of order", n, i)
			}
		}
		if !slices.Equal(slices.Sorted(slices.Values(keys)), want) {
			t.Fatalf("n=%d: keys lost or changed", n)
		}
	}
}
