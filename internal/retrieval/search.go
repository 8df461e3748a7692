package retrieval

import (
	"slices"

	"parley/internal/domain"
)

// Hit is one ranked unit: a Q&A entry or a passage of a document.
type Hit struct {
	Entry      domain.KnowledgeEntry
	EntryIndex int     // Entry's position in the slice given to Build
	Question   string  // Q&A: the question; "" for a document
	Heading    string  // document: the passage's heading, or the title
	Passage    string  // Q&A: the answer; document: the passage
	Score      float64 // BM25F: orders hits, comparable within one search only
	Confidence float64 // in [0,1]: how much of the query the unit explains
}

// Confidence scoring. Confidence is the share of the query's information
// (its words weighted by IDF) that the unit accounts for. A word found only
// in the body (answer or passage text) counts bodyMatch of a word found in
// the question or heading: answers mention many things in passing. A word
// recognised only as a typo of a known word counts typoMatch, one
// recognised as a relative of a known stem (see relatives) relativeMatch, a
// synonym synonymMatch. Such a word is weighed by the IDF of the word it was
// taken for, in both the score and the confidence.
const (
	bodyMatch     = 0.75
	typoMatch     = 0.8
	relativeMatch = 0.8
)

// queryTerm is one distinct analysed word of a query and the vocabulary
// terms it matches: the word itself, or what it was recognised as, and that
// term's relatives and synonyms. A unit scores by the best of them, never
// their sum.
type queryTerm struct {
	weight float64 // IDF of the term the word was recognised as
	alts   []alt   // empty when no unit has the word
}

// alt is one vocabulary term a query word matches, and how well: 1 for the
// word itself, less for a typo, a relative or a synonym.
type alt struct {
	id    int32
	match float64
}

// Search returns up to k units that match query best, best first, searching
// only entries in language lang and entries without a language. Only units
// sharing at least one word with the query are returned.
//
// Confidence, unlike Score, is comparable across queries and knowledge
// bases: about 0.3 separates real answers from coincidences (see the agent's
// threshold). Words of the query that no entry has weigh as much as the
// rarest known word, so "what is the weather on Mars" scores near 0 against
// a shop's knowledge even when one of its words happens to occur there.
func (ix *Index) Search(query, lang string, k int) []Hit {
	li := ix.langs[lang]
	if li == nil {
		li = ix.other
	}
	if li == nil || k <= 0 || len(li.units) == 0 {
		return nil
	}
	terms := li.queryTerms(query, lang)
	var total float64
	for _, t := range terms {
		total += t.weight
	}
	if total == 0 {
		return nil
	}

	acc := li.scratch.Get().(*accumulator)
	defer li.scratch.Put(acc)
	acc.reset()
	for _, t := range terms {
		for _, a := range t.alts {
			for _, p := range li.postings[a.id] {
				m := t.weight * a.match
				if !p.head {
					m *= bodyMatch
				}
				acc.offer(p.unit, t.weight*a.match*float64(p.impact), m)
			}
		}
		acc.commit()
	}
	top := acc.best(k)
	hits := make([]Hit, 0, len(top))
	for _, local := range top {
		u := ix.units[li.units[local]]
		hits = append(hits, Hit{
			Entry:      ix.entries[u.entry],
			EntryIndex: u.entry,
			Question:   u.question,
			Heading:    u.heading,
			Passage:    u.text,
			Score:      acc.score[local],
			Confidence: min(acc.match[local]/total, 1),
		})
	}
	return hits
}

// queryTerms analyses a query. Each distinct word is looked up in the
// vocabulary, else recognised as a typo of a written word or of a stem; it
// then also matches its relatives (see relatives) and synonyms. Words the
// vocabulary has are never corrected; unknown words that are typos of stop
// words are dropped like stop words.
func (li *langIndex) queryTerms(query, lang string) []queryTerm {
	an := analyzer{lang: lang}
	var out []queryTerm
	var seenStems []string // of unknown words
	var seenTerms []int32  // of the terms words were recognised as
	for _, t := range an.terms(nil, query) {
		main, match := int32(-1), 1.0
		if id, ok := li.terms[t.stem]; ok {
			main = id
		} else if hasDigit(t.word) {
			// numbers are not misspelt words
		} else if w, ok := li.wordTypos.lookup(t.word, li.moreFrequentWord); ok {
			main, match = li.wordTerm[w], typoMatch
		} else if s, ok := li.stemTypos.lookup(t.stem, li.moreFrequentTerm); ok {
			main, match = s, typoMatch
		}
		stem := t.stem
		if main >= 0 {
			if slices.Contains(seenTerms, main) {
				continue
			}
			seenTerms = append(seenTerms, main)
			stem = li.stems[main]
		} else {
			if slices.Contains(seenStems, t.stem) {
				continue
			}
			seenStems = append(seenStems, t.stem)
		}
		qt := li.expand(main, match, stem, t.word, t.lang)
		if len(qt.alts) == 0 && isStopTypo(t) {
			continue
		}
		out = append(out, qt)
	}
	return out
}

// expand makes the query term for a word recognised as term main (-1 when
// not) with stem: the term itself, its relatives and its synonyms. The
// written word finds relatives too, as Snowball sometimes cuts a stem short
// (Russian "отмена" → отм, but "отменить" → отмен).
func (li *langIndex) expand(main int32, match float64, stem, word, lang string) queryTerm {
	qt := queryTerm{weight: li.rareIDF}
	add := func(id int32, m float64) {
		if !slices.ContainsFunc(qt.alts, func(a alt) bool { return a.id == id }) {
			qt.alts = append(qt.alts, alt{id, m})
		}
	}
	if main >= 0 {
		qt.weight = li.idf[main]
		add(main, match)
	}
	rels := li.related.lookup(stem, nil)
	if word != stem {
		rels = li.related.lookup(word, rels)
	}
	for _, id := range rels {
		add(id, match*relativeMatch)
	}
	for _, s := range synonyms[lang][stem] {
		if id, ok := li.terms[s]; ok {
			add(id, match*synonymMatch)
		}
	}
	if main < 0 && len(qt.alts) > 0 {
		// Recognised only through another word: weigh it as the
		// rarest of them, which is what it most likely stands for.
		qt.weight = 0
		for _, a := range qt.alts {
			qt.weight = max(qt.weight, li.idf[a.id])
		}
	}
	return qt
}

func (li *langIndex) moreFrequentWord(a, b int32) bool {
	if li.wordFreq[a] != li.wordFreq[b] {
		return li.wordFreq[a] > li.wordFreq[b]
	}
	return li.words[a] < li.words[b]
}

func (li *langIndex) moreFrequentTerm(a, b int32) bool {
	if li.df[a] != li.df[b] {
		return li.df[a] > li.df[b]
	}
	return a < b
}

// accumulator holds one search's per-unit sums; searches reuse them through
// a pool, so a search allocates little more than its hits. offer keeps the
// best contribution of one query word per unit, commit adds them.
type accumulator struct {
	score, match         []float64
	touched              []int32
	wordScore, wordMatch []float64
	wordTouched          []int32
	top                  []int32
}

func newAccumulator(n int) *accumulator {
	return &accumulator{
		score: make([]float64, n), match: make([]float64, n),
		wordScore: make([]float64, n), wordMatch: make([]float64, n),
	}
}

func (a *accumulator) reset() {
	for _, u := range a.touched {
		a.score[u], a.match[u] = 0, 0
	}
	a.touched = a.touched[:0]
}

func (a *accumulator) offer(u int32, score, match float64) {
	if a.wordScore[u] == 0 && a.wordMatch[u] == 0 {
		a.wordTouched = append(a.wordTouched, u)
	}
	a.wordScore[u] = max(a.wordScore[u], score)
	a.wordMatch[u] = max(a.wordMatch[u], match)
}

func (a *accumulator) commit() {
	for _, u := range a.wordTouched {
		if a.score[u] == 0 && a.match[u] == 0 {
			a.touched = append(a.touched, u)
		}
		a.score[u] += a.wordScore[u]
		a.match[u] += a.wordMatch[u]
		a.wordScore[u], a.wordMatch[u] = 0, 0
	}
	a.wordTouched = a.wordTouched[:0]
}

// best returns the k units with the highest scores, best first (ties: the
// earlier unit). Common words touch most units; keeping a short sorted list
// is much cheaper than sorting them all.
func (a *accumulator) best(k int) []int32 {
	better := func(u, v int32) bool {
		return a.score[u] > a.score[v] || (a.score[u] == a.score[v] && u < v)
	}
	top := a.top[:0]
	for _, u := range a.touched {
		if len(top) == k && !better(u, top[k-1]) {
			continue
		}
		if len(top) < k {
			top = append(top, u)
		} else {
			top[k-1] = u
		}
		for i := len(top) - 1; i > 0 && better(top[i], top[i-1]); i-- {
			top[i], top[i-1] = top[i-1], top[i]
		}
	}
	a.top = top
	return top
}
