package questions

import (
	"math"
	"unicode/utf8"
)

// representative picks the member that stands best for a group: the most
// typical one, whose terms are those most members use. A member scores
// each of its terms by the share of members having it, above half counting
// for it and below half against it (weighted as in similarity): so the
// member that asks just the common question beats one that adds context
// of its own ("… a bottle of wine"), without comparing every pair of a
// large group. Ties go to the shorter text, then the earlier item.
func representative(qs []question, items []Item, members []int) int {
	if len(members) == 1 {
		return members[0]
	}
	counts := make(map[int32]int)
	for _, m := range members {
		for _, t := range qs[m].terms {
			counts[t.id]++
		}
	}
	n := float64(len(members))
	best, bestScore, bestLen := members[0], math.Inf(-1), 0
	for _, m := range members {
		score := 0.0
		for _, t := range qs[m].terms {
			score += t.weight * (2*float64(counts[t.id])/n - 1)
		}
		size := utf8.RuneCountInString(items[m].Text)
		if score > bestScore+1e-9 || (math.Abs(score-bestScore) <= 1e-9 && size < bestLen) {
			best, bestScore, bestLen = m, score, size
		}
	}
	return best
}
