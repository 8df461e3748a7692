package retrieval

import (
	"slices"

	"parley/internal/domain"
)

// refBuild is the index build as it was before Builder (commit 6ed7e9e):
// every entry analysed again for every language, in one pass. The tests
// compare Builder's indexes with it, field by field, so the incremental
// build is known to find exactly what the full one found.
func refBuild(entries []domain.KnowledgeEntry) *Index {
	ix := &Index{entries: entries, langs: make(map[string]*langIndex)}
	langs := make(map[string]bool)
	untagged := false
	for i, e := range entries {
		if e.IsDocument() {
			for _, p := range SplitDocument(e.Title, e.Text) {
				ix.units = append(ix.units, unit{entry: i, heading: p.Heading, text: p.Text})
			}
		} else if e.Question != "" || e.Answer != "" {
			ix.units = append(ix.units, unit{entry: i, question: e.Question, text: e.Answer})
		}
		if e.Lang == "" {
			untagged = true
		} else {
			langs[e.Lang] = true
		}
	}
	if untagged {
		for _, l := range []string{"en", "ro", "ru"} {
			langs[l] = true
		}
	}
	for l := range langs {
		ix.langs[l] = refBuildLang(ix, l, func(e string) bool { return e == l || e == "" })
	}
	if untagged {
		ix.other = refBuildLang(ix, "", func(e string) bool { return e == "" })
	}
	return ix
}

type refUnitTerms struct {
	tf               map[int32][2]int
	headLen, bodyLen int
}

func refBuildLang(ix *Index, lang string, visible func(entryLang string) bool) *langIndex {
	li := &langIndex{terms: make(map[string]int32)}
	an := newAnalyzer(lang)
	wordIDs := make(map[string]int32)
	var all []refUnitTerms
	var headSum, bodySum int
	var buf []term
	for uid, u := range ix.units {
		if !visible(ix.entries[u.entry].Lang) {
			continue
		}
		li.units = append(li.units, int32(uid))
		ut := refUnitTerms{tf: make(map[int32][2]int)}
		for field, text := range [2]string{u.head(), u.text} {
			buf = an.terms(buf[:0], text)
			for _, t := range buf {
				id := li.termID(t.stem)
				f := ut.tf[id]
				f[field]++
				ut.tf[id] = f
				refAddWord(li, wordIDs, t, id)
			}
			if field == 0 {
				ut.headLen = len(buf)
			} else {
				ut.bodyLen = len(buf)
			}
		}
		headSum += ut.headLen
		bodySum += ut.bodyLen
		all = append(all, ut)
	}
	li.scratch.New = func() any { return newAccumulator(len(li.units)) }
	if len(li.units) == 0 {
		return li
	}
	n := float64(len(li.units))
	avgHead, avgBody := max(float64(headSum)/n, 1), max(float64(bodySum)/n, 1)
	li.postings = make([][]posting, len(li.df))
	for local, ut := range all {
		bHead := 1 - b + b*float64(ut.headLen)/avgHead
		bBody := 1 - b + b*float64(ut.bodyLen)/avgBody
		for id, f := range ut.tf {
			tf := headWeight*float64(f[0])/bHead + bodyWeight*float64(f[1])/bBody
			imp := tf / (k1 + tf)
			li.postings[id] = append(li.postings[id], posting{unit: int32(local), impact: float32(imp), head: f[0] > 0})
			li.df[id]++
		}
	}
	li.idf = make([]float64, len(li.df))
	for id, df := range li.df {
		li.idf[id] = idf(n, float64(df))
	}
	li.headInfo = make([]float64, len(all))
	for local, ut := range all {
		for id, f := range ut.tf {
			if f[0] > 0 {
				li.headInfo[local] += li.idf[id]
			}
		}
	}
	li.rareIDF = idf(n, 1)
	li.stems = make([]string, len(li.terms))
	for s, id := range li.terms {
		li.stems[id] = s
	}
	li.stemTypos = refFuzzy(li.stems)
	li.related = newRelatives(li.stems)
	li.wordTypos = refFuzzy(li.words)
	return li
}

func refAddWord(li *langIndex, ids map[string]int32, t term, termID int32) {
	if len([]rune(t.word)) < 4 || hasDigit(t.word) {
		return
	}
	id, ok := ids[t.word]
	if !ok {
		id = int32(len(li.words))
		ids[t.word] = id
		li.words = append(li.words, t.word)
		li.wordTerm = append(li.wordTerm, termID)
		li.wordFreq = append(li.wordFreq, 0)
	}
	li.wordFreq[id]++
}

// refFuzzy is the typo table of every word, sorted by its whole keys.
func refFuzzy(words []string) *fuzzy {
	f := &fuzzy{words: make([][]rune, len(words))}
	for id, w := range words {
		f.words[id] = []rune(w)
	}
	for id, rs := range f.words {
		forDeletions(rs, maxEdits(len(rs)), func(h uint64) {
			f.keys = append(f.keys, h>>idBits<<idBits|uint64(id))
		})
	}
	slices.Sort(f.keys)
	return f
}
