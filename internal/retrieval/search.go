package retrieval

import (
	"slices"
	"unicode/utf8"

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
	// HeadCoverage in [0,1]: how much of the unit's question or heading
	// the query asks about (see below).
	HeadCoverage float64
	// QueryCoverage in [0,1]: the share of the query's information the
	// unit accounts for (q below, before head coverage raises it).
	QueryCoverage float64
	// Unknown in [0,1]: the share of the query's information in words no
	// unit has, not even as a typo, relative or synonym; the same for every
	// hit of a search. A question whose own subject is unknown ("do you
	// sell cars?" to a furniture shop) is often one the knowledge lacks.
	Unknown float64
	// Unit identifies the unit within its index (see Index.Unit), the
	// same for every search of the index: hybrid retrieval fuses by it.
	Unit int
}

// Confidence scoring. Confidence looks at a match from both sides:
//
//   - Query coverage: the share of the query's information (its words
//     weighted by IDF) that the unit accounts for. A word found only in the
//     body (answer or passage text) counts bodyMatch of a word found in the
//     question or heading: answers mention many things in passing. A word
//     recognised only as a typo of a known word counts typoMatch, one
//     recognised as a relative of a known stem (see relatives)
//     relativeMatch, a synonym synonymMatch. Such a word is weighed by the
//     IDF of the word it was taken for, in both the score and the
//     confidence.
//   - Head coverage: the share of the unit's question or heading (its
//     distinct words weighted by IDF) that the query asks about.
//
// Query coverage alone drowns in the context of a long question ("I bought
// a lamp two weeks ago, never used it, … can I send it back?"): every word
// the knowledge lacks weighs as the rarest known word, so even a question
// that asks exactly what a stored question asks scores low. Head coverage
// sees that the stored question is asked, whatever else the visitor says.
// It is mixed in squared, and only ever raises the confidence: an
// off-topic question often shares one word with a short stored question
// ("do you sell submarines for shipping?" and "How much does shipping
// cost?" share half of it), while a question that really asks the stored
// one covers most of it. Squaring keeps half a head (0.25) from lifting a
// coincidence over the agent's threshold, yet lets a fully covered head
// rescue a long question. headMix is the head coverage's share.
const (
	bodyMatch     = 0.75
	typoMatch     = 0.8
	relativeMatch = 0.8
	headMix       = 0.7
)

// numberWeight scales a number's weight in a query. Numbers in a visitor's
// message are mostly their own circumstances ("ordered 3 days ago", "after
// 8 months"), which an answer mentioning the same number in passing ("within
// 3 days of delivery") does not address; as words they are rare, so full
// IDF would let them outweigh the words that say what is asked.
const numberWeight = 0.3

// confidence combines query coverage q and head coverage h (see above):
// head coverage can raise the confidence, never lower it, so terse
// questions answered from the body (the answer text) keep theirs.
func confidence(q, h float64) float64 {
	q = min(q, 1)
	return max(q, (1-headMix)*q+headMix*h*h)
}

// headCoverage is the share of local unit's head information that head,
// the IDF sum of the head terms a query matched, stands for.
func (li *langIndex) headCoverage(local int32, head float64) float64 {
	if li.headInfo[local] == 0 {
		return 0
	}
	return min(head/li.headInfo[local], 1)
}

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
	li := ix.langIndex(lang)
	if li == nil || k <= 0 || len(li.units) == 0 {
		return nil
	}
	terms := li.queryTerms(query, lang)
	var total, unknown float64
	for _, t := range terms {
		total += t.weight
		if len(t.alts) == 0 {
			unknown += t.weight
		}
	}
	if total == 0 {
		return nil
	}

	acc := li.scratch.Get().(*accumulator)
	defer li.scratch.Put(acc)
	acc.reset()
	for _, t := range terms {
		for _, a := range t.alts {
			// Head coverage weighs the unit's own word (what it is
			// about), not the query's: a synonym covers "delivery" as
			// much as "delivery" is worth to the unit.
			hm := li.idf[a.id] * a.match
			for _, p := range li.postings[a.id] {
				m, h := t.weight*a.match, hm
				if !p.head {
					m, h = m*bodyMatch, 0
				}
				acc.offer(p.unit, t.weight*a.match*float64(p.impact), m, h)
			}
		}
		acc.commit()
	}
	top := acc.best(k)
	hits := make([]Hit, 0, len(top))
	for _, local := range top {
		u := ix.units[li.units[local]]
		hc := li.headCoverage(local, acc.head[local])
		hits = append(hits, Hit{
			Entry:         ix.entries[u.entry],
			EntryIndex:    u.entry,
			Question:      u.question,
			Heading:       u.heading,
			Passage:       u.text,
			Score:         acc.score[local],
			Confidence:    confidence(acc.match[local]/total, hc),
			HeadCoverage:  hc,
			QueryCoverage: min(acc.match[local]/total, 1),
			Unknown:       unknown / total,
			Unit:          int(li.units[local]),
		})
	}
	return hits
}

// langIndex is the part of the index that queries in lang search: lang's
// own, else the one for languages without one (nil when there is none).
func (ix *Index) langIndex(lang string) *langIndex {
	if li := ix.langs[lang]; li != nil {
		return li
	}
	return ix.other
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
	for _, w := range an.words(query) {
		r := li.resolve(w)
		if r.main >= 0 {
			if slices.Contains(seenTerms, r.main) {
				continue
			}
			seenTerms = append(seenTerms, r.main)
		} else {
			if slices.Contains(seenStems, r.base) {
				continue
			}
			seenStems = append(seenStems, r.base)
		}
		if !r.drop {
			out = append(out, r.qt)
		}
	}
	return out
}

// resolved is what a query word comes to in an index: the term it is
// recognised as (-1 when none), the stem it stands for, its query term,
// and whether it is dropped (an unknown word that is a typo of a stop
// word).
type resolved struct {
	main int32
	base string
	qt   queryTerm
	drop bool
}

// resolve looks qw up as queryTerms describes, remembering the answer
// (wordMemo): it depends on the word and the index alone, and visitors'
// messages are made of the same words again and again.
func (li *langIndex) resolve(qw word) resolved {
	if r, ok := li.memo.get(qw); ok {
		return r
	}
	a := analyzer{}
	t := term{qw.word, a.stem(qw.lang, qw.word), qw.lang}
	main, match, base := int32(-1), 1.0, t.stem
	if id, ok := li.terms[t.stem]; ok {
		main = id
	} else if hasDigit(t.word) {
		// numbers are not misspelt words
	} else if w, ok := li.wordTypos.lookup(t.word, li.moreFrequentWord); ok {
		main, match = li.wordTerm[w], typoMatch
	} else if s, ok := li.stemTypos.lookup(t.stem, li.moreFrequentTerm); ok {
		main, match = s, typoMatch
	} else if w, ok := synonymTypo(t); ok {
		match, base = typoMatch, w
	}
	if main >= 0 {
		base = li.stems[main]
	}
	qt := li.expand(main, match, base, t.word, t.lang)
	if hasDigit(t.word) {
		qt.weight *= numberWeight
	}
	r := resolved{main: main, base: base, qt: qt, drop: len(qt.alts) == 0 && isStopTypo(t)}
	li.memo.put(qw, r)
	return r
}

// minSynonymTypo is the shortest word synonymTypo corrects. Unlike a typo
// of a vocabulary word, nothing in the knowledge confirms the reading, and
// short real words are often one edit from some word of the lists (Russian
// "ждать", "wait", from "сдать", "hand in").
const minSynonymTypo = 6

// synonymTypo recognises an unknown word as a misspelt word of the synonym
// groups ("gurantee" where the knowledge says "warranty") and returns that
// word's stem. Words that are in a group themselves are left alone.
func synonymTypo(t term) (string, bool) {
	f := synonymTypos[t.lang]
	if f == nil || len(synonyms[t.lang][t.stem]) > 0 || utf8.RuneCountInString(t.word) < minSynonymTypo {
		return "", false
	}
	w, ok := f.lookup(t.word, func(a, b int32) bool { return a < b })
	if !ok {
		return "", false
	}
	return stem(t.lang, string(f.words[w])), true
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

// accumulator holds one search's per-unit sums (score, query information
// matched, head information matched); searches reuse them through a pool,
// so a search allocates little more than its hits. offer keeps the best
// contribution of one query word per unit, commit adds them.
type accumulator struct {
	score, match, head             []float64
	touched                        []int32
	wordScore, wordMatch, wordHead []float64
	wordTouched                    []int32
	top                            []int32
}

func newAccumulator(n int) *accumulator {
	return &accumulator{
		score: make([]float64, n), match: make([]float64, n), head: make([]float64, n),
		wordScore: make([]float64, n), wordMatch: make([]float64, n), wordHead: make([]float64, n),
	}
}

func (a *accumulator) reset() {
	for _, u := range a.touched {
		a.score[u], a.match[u], a.head[u] = 0, 0, 0
	}
	a.touched = a.touched[:0]
}

func (a *accumulator) offer(u int32, score, match, head float64) {
	if a.wordScore[u] == 0 && a.wordMatch[u] == 0 {
		a.wordTouched = append(a.wordTouched, u)
	}
	a.wordScore[u] = max(a.wordScore[u], score)
	a.wordMatch[u] = max(a.wordMatch[u], match)
	a.wordHead[u] = max(a.wordHead[u], head)
}

func (a *accumulator) commit() {
	for _, u := range a.wordTouched {
		if a.score[u] == 0 && a.match[u] == 0 {
			a.touched = append(a.touched, u)
		}
		a.score[u] += a.wordScore[u]
		a.match[u] += a.wordMatch[u]
		a.head[u] += a.wordHead[u]
		a.wordScore[u], a.wordMatch[u], a.wordHead[u] = 0, 0, 0
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
