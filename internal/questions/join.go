package questions

import (
	"cmp"
	"slices"
)

// join unites in sets the questions of which (indexes into qs, ascending)
// that are the same, and returns how
// many pairs it compared. Comparing every pair would take 12.5 million
// comparisons for 5,000 questions, so an inverted index from each term to
// the questions having it finds the candidates, and each question looks
// up only the terms it cannot be the same without (its rarest ones, see
// lookupTerms). Questions are compared with the earlier ones only, and a
// pair already in one set is not compared at all: most of a large group
// is joined without ever being measured against the rest of it.
func join(v *vocabulary, qs []question, which []int, sets *disjointSets) (compared int) {
	df := make([]int32, len(v.terms)) // questions having each term
	for _, i := range which {
		for _, t := range qs[i].terms {
			df[t.id]++
		}
	}
	postings := make([][]int32, len(v.terms))
	seen := make([]int32, len(qs)) // seen[j] == i+1: j is a candidate of i already
	var lookup []qterm
	for _, i := range which {
		q := &qs[i]
		lookup = lookupTerms(q, df, lookup[:0])
		for _, t := range lookup {
			compared += visit(v, qs, sets, seen, i, postings[t.id])
			for _, m := range v.terms[t.id].matches {
				compared += visit(v, qs, sets, seen, i, postings[m.id])
			}
		}
		for _, t := range q.terms {
			postings[t.id] = append(postings[t.id], int32(i))
		}
	}
	return compared
}

// visit compares question i with the earlier questions of a posting list
// it has not met yet, and joins the same ones.
func visit(v *vocabulary, qs []question, sets *disjointSets, seen []int32, i int, list []int32) (compared int) {
	for _, j := range list {
		if seen[j] == int32(i+1) {
			continue
		}
		seen[j] = int32(i + 1)
		if sets.find(int(j)) == sets.find(i) {
			continue
		}
		compared++
		if same(v, &qs[i], &qs[j]) {
			sets.union(i, int(j))
		}
	}
	return compared
}

// lookupTerms appends to dst the terms of q that another question must
// match (by the term, a synonym or a relative) to be the same as q: the
// rarest terms first, until the ones left weigh too little to reach the
// threshold on their own. Similarity is at most the share of q's weight
// the other question matches, and that weight can shrink by one plain
// word's allowance, so a question matching none of the chosen terms covers
// less than threshold of q. Common terms ("order", a shop's main subject)
// are then rarely looked up at all.
func lookupTerms(q *question, df []int32, dst []qterm) []qterm {
	dst = append(dst, q.terms...)
	slices.SortFunc(dst, func(a, b qterm) int {
		if c := cmp.Compare(df[a.id], df[b.id]); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	least := q.least()
	rest := q.weight
	for n, t := range dst {
		if rest < threshold*least-1e-9 {
			return dst[:n]
		}
		rest -= t.weight
	}
	return dst
}
