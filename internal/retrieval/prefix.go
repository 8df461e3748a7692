package retrieval

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Snowball stems only inflection, not derivation, and not every inflection:
// "deliver" stems to deliv but "delivery" to deliveri, Russian "заказать"
// to заказа but "заказ" to заказ, "доставляете" to доставля but "доставка"
// to доставк. So a query word also matches its relatives: known stems that
// begin the same way. minPrefix and prefixShare say how long the common
// beginning must be, in letters and as a share of the shorter stem.
const (
	minPrefix   = 5
	prefixShare = 0.7
)

// relatives finds the known stems that begin the same way as a query stem.
// It keeps the vocabulary's stems sorted so the candidates sharing the first
// minPrefix letters are one binary search away.
type relatives struct {
	stems []string
	ids   []int32 // term id of each stem
}

func newRelatives(stems []string) *relatives {
	type stemID struct {
		stem string
		id   int32
	}
	var sorted []stemID
	for id, s := range stems {
		if utf8.RuneCountInString(s) >= minPrefix {
			sorted = append(sorted, stemID{s, int32(id)})
		}
	}
	slices.SortFunc(sorted, func(a, b stemID) int { return strings.Compare(a.stem, b.stem) })
	r := &relatives{stems: make([]string, len(sorted)), ids: make([]int32, len(sorted))}
	for i, s := range sorted {
		r.stems[i], r.ids[i] = s.stem, s.id
	}
	return r
}

// relativesFrom is newRelatives(stems), made from prev, the previous
// build's (nil for none), when there is one: the stems both have keep
// their order with their ids renumbered (ids maps each stem to its id), and
// only new stems are sorted, then merged in.
func relativesFrom(prev *relatives, stems []string, ids map[string]int32) *relatives {
	if prev == nil {
		return newRelatives(stems)
	}
	had := make([]bool, len(stems))
	carried := &relatives{stems: make([]string, 0, len(prev.stems)), ids: make([]int32, 0, len(prev.stems))}
	for _, s := range prev.stems {
		if id, ok := ids[s]; ok {
			carried.stems = append(carried.stems, s)
			carried.ids = append(carried.ids, id)
			had[id] = true
		}
	}
	var added []string
	for id, s := range stems {
		if !had[id] {
			added = append(added, s)
		}
	}
	fresh := newRelatives(added) // ids into added
	for i, k := range fresh.ids {
		fresh.ids[i] = ids[added[k]]
	}
	r := &relatives{stems: make([]string, 0, len(carried.stems)+len(fresh.stems)), ids: make([]int32, 0, len(carried.ids)+len(fresh.ids))}
	i, j := 0, 0
	for i < len(carried.stems) || j < len(fresh.stems) {
		if j == len(fresh.stems) || (i < len(carried.stems) && carried.stems[i] < fresh.stems[j]) {
			r.stems, r.ids = append(r.stems, carried.stems[i]), append(r.ids, carried.ids[i])
			i++
		} else {
			r.stems, r.ids = append(r.stems, fresh.stems[j]), append(r.ids, fresh.ids[j])
			j++
		}
	}
	return r
}

// lookup appends to dst the term ids of the known stems other than q itself
// that share enough of their beginning with q.
func (r *relatives) lookup(q string, dst []int32) []int32 {
	qr := []rune(q)
	if len(qr) < minPrefix {
		return r.derived(q, dst)
	}
	head := string(qr[:minPrefix])
	for i := sort.SearchStrings(r.stems, head); i < len(r.stems) && strings.HasPrefix(r.stems[i], head); i++ {
		if r.stems[i] == q {
			continue
		}
		vr := []rune(r.stems[i])
		if n := commonPrefix(qr, vr); float64(n) >= prefixShare*float64(min(len(qr), len(vr))) {
			dst = append(dst, r.ids[i])
		}
	}
	return dst
}

func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// derivations are English suffixes that make a noun of a short verb which
// Snowball keeps apart from it ("pay" and "payment", "deliver" and
// "delivery" are caught by the common beginning).
var derivations = []string{"ment", "al", "er", "or", "ion"}

// derived finds, for a stem too short for a common beginning to mean much,
// the known stems that are it plus a derivational suffix.
func (r *relatives) derived(q string, dst []int32) []int32 {
	if utf8.RuneCountInString(q) < 3 {
		return dst
	}
	for _, suf := range derivations {
		i := sort.SearchStrings(r.stems, q+suf)
		if i < len(r.stems) && r.stems[i] == q+suf {
			dst = append(dst, r.ids[i])
		}
	}
	return dst
}
