package questions

import (
	"math"
	"slices"
)

// How much a term counts when the other question has not the same stem but
// a synonym of it ("shipping" for "delivery") or a relative ("deliver" for
// "delivery", which Snowball stems apart): as in a search, a little less
// than the word itself (and so does a typo, see typo.go).
const (
	synonymMatch  = 0.8
	relativeMatch = 0.8
)

// threshold is the similarity from which two questions are the same (see
// similarity). Chosen on the tuning set (testdata/tuning.txt) as the lowest
// that calls no hard negative the same in any language; see docs/agent.md,
// "Grouping questions".
const threshold = 0.76

// similarity in [0,1] is how much of each question the other one matches,
// the lesser of the two: the weight of a question's terms the other
// matches (fully for the same stem, less for a synonym, relative or typo) over
// the weight of all its terms. Taking the lesser side keeps a question that
// asks one thing more ("can I exchange these shoes for a bigger size"
// against "do you have these shoes in a bigger size") apart, where an
// average of both sides would call it the same.
//
// One allowance: when every term of one question is matched (by itself, a
// synonym, a relative or a typo) by at least two words of the other (words
// of substance, not light ones: see matchers), a single
// word of the other that no synonym group knows (an elaboration: "a
// *bottle* of wine", "is the *building* accessible") counts as a light
// word. With one word left the elaboration would be half the question:
// "can I choose the courier" is not "which courier do you use". A word the
// groups know names a help-desk subject of its own (cost, return, delivery)
// and keeps its full weight: "how much does parking cost" is not "is there
// parking".
//
// Questions in different languages are never similar: a knowledge entry
// is written in one.
func similarity(v *vocabulary, a, b *question) float64 {
	sim, _ := compare(v, a, b, false)
	return sim
}

// same reports whether similarity reaches the threshold. It gives up on a
// pair as soon as one question has missed too much to reach it, which
// keeps long messages, mostly different, cheap to compare.
func same(v *vocabulary, a, b *question) bool {
	_, ok := compare(v, a, b, true)
	return ok
}

// compare is the similarity of a and b and whether it reaches the
// threshold. With giveUp it stops, returning false, once the weight one
// question misses shows it cannot: the similarity is at most a question's
// matched weight over the least weight it can count with (its weight less
// one plain word's allowance, see question.least).
func compare(v *vocabulary, a, b *question, giveUp bool) (float64, bool) {
	if a.lang != b.lang || a.weight == 0 || b.weight == 0 {
		return 0, false
	}
	maxA, maxB := math.Inf(1), math.Inf(1)
	if giveUp {
		maxA, maxB = a.weight-threshold*a.least()+1e-9, b.weight-threshold*b.least()+1e-9
	}
	ca, missA, ua, ok := covered(v, a, b, maxA)
	if !ok {
		return 0, false
	}
	cb, missB, ub, ok := covered(v, b, a, maxB)
	if !ok {
		return 0, false
	}
	wa, wb := a.weight, b.weight
	switch {
	case missA == 0 && ub != nil && matchers(v, a, b) >= 2:
		wb -= ub.weight - lightWeight
	case missB == 0 && ua != nil && matchers(v, b, a) >= 2:
		wa -= ua.weight - lightWeight
	}
	sim := min(ca/wa, cb/wb)
	return sim, sim >= threshold
}

// covered is the weight of a's terms that b matches, each by its best
// match in b, how many of a's terms b does not match at all, and a's one
// unmatched plain word (see similarity) when that is the only one; else
// nil. It stops, with ok false, once the weight b misses of a's terms
// (what a match leaves of a term's weight) passes maxMiss.
func covered(v *vocabulary, a, b *question, maxMiss float64) (sum float64, misses int, unmatched *qterm, ok bool) {
	missed := 0.0
	for i := range a.terms {
		t := &a.terms[i]
		best := 0.0
		for _, u := range b.terms {
			best = max(best, v.match(t.id, u.id))
			if best == 1 {
				break
			}
		}
		sum += t.weight * best
		if missed += t.weight * (1 - best); missed > maxMiss {
			return 0, 0, nil, false
		}
		if best == 0 {
			misses++
			unmatched = t
		}
	}
	if misses != 1 || !unmatched.plain {
		unmatched = nil
	}
	return sum, misses, unmatched, true
}

// matchers counts the distinct terms of b that match a's terms best, for
// a's terms weightier than light words: "can I *come* without an
// appointment" is one word of substance, and "can I come with a friend
// to my appointment" adds a second, not an elaboration.
func matchers(v *vocabulary, a, b *question) int {
	var used []int32
	for _, t := range a.terms {
		if t.weight <= lightWeight {
			continue
		}
		best, by := 0.0, int32(-1)
		for _, u := range b.terms {
			if m := v.match(t.id, u.id); m > best {
				best, by = m, u.id
			}
		}
		if by >= 0 && !slices.Contains(used, by) {
			used = append(used, by)
		}
	}
	return len(used)
}
