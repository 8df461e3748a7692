package questions

import (
	"slices"

	"parley/internal/retrieval"
)

// vocabulary numbers the distinct terms of the questions being compared
// and knows, once for all their pairs, which terms match which: comparing
// two questions is then a few integer comparisons, not synonym lookups and
// prefix checks on strings.
type vocabulary struct {
	ids      map[termName]int32
	terms    []vterm
	done     int // terms whose matches are known: ids below done
	analyzer retrieval.TermAnalyzer
}

// termName is a stem of a stemmer language in questions of a language:
// questions of different languages share no terms, so they never meet.
type termName struct{ qlang, tlang, stem string }

type vterm struct {
	termName
	matches []termWeight // other terms it matches, and how well
}

type termWeight struct {
	id    int32
	match float64
}

func newVocabulary() *vocabulary { return &vocabulary{ids: make(map[termName]int32)} }

func (v *vocabulary) id(qlang, tlang, stem string) int32 {
	n := termName{qlang, tlang, stem}
	if id, ok := v.ids[n]; ok {
		return id
	}
	id := int32(len(v.terms))
	v.ids[n] = id
	v.terms = append(v.terms, vterm{termName: n})
	return id
}

// link works out the matches of the terms added since the last call: their
// synonyms (the search's groups and the extra ones), relatives and typos
// among the vocabulary's terms, both ways.
func (v *vocabulary) link() {
	if v.done == len(v.terms) {
		return
	}
	add := func(a, b int32, m float64) {
		for _, x := range v.terms[a].matches {
			if x.id == b {
				return
			}
		}
		v.terms[a].matches = append(v.terms[a].matches, termWeight{b, m})
		v.terms[b].matches = append(v.terms[b].matches, termWeight{a, m})
	}
	// Relatives meet under their keys (retrieval.RelativeKeys), typos
	// under their deletions (see typoKeys).
	byKey := make(map[termName][]int32)
	for id := range v.terms {
		t := v.terms[id].termName
		if t.tlang == "" {
			continue
		}
		for _, k := range retrieval.RelativeKeys(t.stem) {
			kn := termName{t.qlang, t.tlang, k}
			byKey[kn] = append(byKey[kn], int32(id))
		}
		for _, k := range typoKeys(t.stem) {
			kn := termName{t.qlang, t.tlang, k}
			byKey[kn] = append(byKey[kn], int32(id))
		}
	}
	for id := v.done; id < len(v.terms); id++ {
		t := v.terms[id].termName
		search, extra := synonymsOf(t.stem, t.tlang, t.qlang)
		// A synonym may be a term of either language of the question
		// (see synonymsOf).
		langs := []string{t.tlang}
		if t.qlang != t.tlang {
			langs = append(langs, t.qlang)
		}
		for _, s := range slices.Concat(search, extra) {
			for _, tl := range langs {
				if o, ok := v.ids[termName{t.qlang, tl, s}]; ok && o != int32(id) {
					add(int32(id), o, synonymMatch)
				}
			}
		}
		if t.tlang == "" {
			continue
		}
		for _, k := range retrieval.RelativeKeys(t.stem) {
			for _, o := range byKey[termName{t.qlang, t.tlang, k}] {
				if o != int32(id) && retrieval.Related(t.stem, v.terms[o].stem) {
					add(int32(id), o, relativeMatch)
				}
			}
		}
		for _, k := range typoKeys(t.stem) {
			for _, o := range byKey[termName{t.qlang, t.tlang, k}] {
				if o != int32(id) && oneEdit([]rune(t.stem), []rune(v.terms[o].stem)) {
					add(int32(id), o, typoMatch)
				}
			}
		}
	}
	v.done = len(v.terms)
}

// match is how well term u stands for term t: 1 for the same term, the
// match of a synonym or relative, else 0.
func (v *vocabulary) match(t, u int32) float64 {
	if t == u {
		return 1
	}
	for _, m := range v.terms[t].matches {
		if m.id == u {
			return m.match
		}
	}
	return 0
}
