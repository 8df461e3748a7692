// Package questions groups visitors' questions that ask the same thing, so
// that the knowledge gaps (questions the agent could not answer, or
// answered with a thumbs-down) show each question once, with how often it
// was asked. It compares questions as the knowledge-base search reads them
// (internal/retrieval: folding, phrases, stop words, stems, synonyms and
// relatives, per language), and typos, in memory, without a store. It is
// lexical: the same question in other words is joined only as far as those
// tell (docs/agent.md, "Grouping questions", has its precision and recall).
package questions

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"parley/internal/retrieval"
)

// Item is one question: what the visitor wrote and the conversation's
// language ("" when unknown: the text decides).
type Item struct {
	Text, Lang string
}

// Group is a set of items that ask the same question.
type Group struct {
	Members        []int // indexes into the items, ascending
	Representative int   // the member that stands best for the group
}

// Same reports whether two items ask the same question: what GroupAll
// joins items on.
func Same(a, b Item) bool {
	v := newVocabulary()
	qa, qb := analyse(v, a), analyse(v, b)
	v.link()
	return same(v, &qa, &qb)
}

// GroupAll groups items: two items are in one group when they are the
// Same, or both the Same as a third (a group is a connected set). Every
// item is in exactly one group, alone when nothing else asks its question.
// Groups come largest first, ties by their first member.
func GroupAll(items []Item) []Group {
	groups, _ := groupAll(items)
	return groups
}

// groupAll is GroupAll, also saying how many pairs of items it compared.
func groupAll(items []Item) ([]Group, int) {
	v := newVocabulary()
	qs := analyseAll(v, items)
	v.link()
	sets := newDisjointSets(len(items))
	// Questions with the same terms (the same words, other greetings,
	// punctuation or case) are the same without comparing them: only the
	// first of each goes to join, the others join it.
	var distinct []int
	first := make(map[string]int)
	for i := range qs {
		if len(qs[i].terms) == 0 {
			continue // nothing to compare ("?", an emoji): alone, as Same says
		}
		sig := qs[i].signature()
		if j, ok := first[sig]; ok {
			sets.union(i, j)
			continue
		}
		first[sig] = i
		distinct = append(distinct, i)
	}
	compared := join(v, qs, distinct, sets)

	byRoot := make(map[int][]int)
	for i := range items {
		r := sets.find(i)
		byRoot[r] = append(byRoot[r], i) // ascending: i grows
	}
	groups := make([]Group, 0, len(byRoot))
	for _, members := range byRoot {
		groups = append(groups, Group{Members: members, Representative: representative(qs, items, members)})
	}
	slices.SortFunc(groups, func(a, b Group) int {
		if c := cmp.Compare(len(b.Members), len(a.Members)); c != 0 {
			return c
		}
		return cmp.Compare(a.Members[0], b.Members[0])
	})
	return groups, compared
}

// disjointSets is a union-find over item indexes.
type disjointSets struct{ parent []int }

func newDisjointSets(n int) *disjointSets {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return &disjointSets{parent: p}
}

func (d *disjointSets) find(i int) int {
	for d.parent[i] != i {
		d.parent[i] = d.parent[d.parent[i]] // path halving
		i = d.parent[i]
	}
	return i
}

func (d *disjointSets) union(i, j int) {
	ri, rj := d.find(i), d.find(j)
	if ri != rj {
		d.parent[max(ri, rj)] = min(ri, rj)
	}
}

// analyseAll analyses items into questions named in v. The analyzer's work
// (three quarters of grouping's) runs on every processor, each with its
// own stem cache; the terms are then named in item order, so term ids, and
// with them the result, do not depend on the scheduling. The same item
// asked again is analysed once.
func analyseAll(v *vocabulary, items []Item) []question {
	first := make(map[Item]int)
	var distinct []int
	for i, it := range items {
		if _, ok := first[it]; !ok {
			first[it] = i
			distinct = append(distinct, i)
		}
	}
	langs := make([]string, len(distinct))
	terms := make([][]retrieval.Term, len(distinct))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(distinct)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var ta retrieval.TermAnalyzer
			for k := w; k < len(distinct); k += workers {
				langs[k], terms[k] = analysed(&ta, items[distinct[k]])
			}
		})
	}
	wg.Wait()
	qs := make([]question, len(items))
	for k, i := range distinct {
		qs[i] = v.question(langs[k], terms[k])
	}
	for i, it := range items {
		if j := first[it]; j != i {
			qs[i] = qs[j]
		}
	}
	return qs
}
