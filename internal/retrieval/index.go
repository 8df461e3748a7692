package retrieval

import (
	"math"
	"sync"
	"unicode"

	"parley/internal/domain"
)

// BM25F parameters. k1 and b are the usual values. A word in a question (or
// a passage's heading) weighs headWeight times one in an answer: the
// question says what the entry is about, the answer also says other things.
const (
	k1         = 1.2
	b          = 0.75
	headWeight = 2.5
	bodyWeight = 1.0
)

// Index is the searchable form of one agent's knowledge. It is immutable
// and safe for concurrent searches; build a new one when the knowledge
// changes.
type Index struct {
	entries []domain.KnowledgeEntry
	units   []unit
	langs   map[string]*langIndex // per search language
	other   *langIndex            // languages no entry has: untagged entries only
}

// unit is what a search ranks and returns: a Q&A entry, or one passage of a
// document.
type unit struct {
	entry    int
	question string // Q&A
	heading  string // document passage
	text     string // the answer, or the passage
}

// head is the text that says what the unit is about.
func (u unit) head() string {
	if u.question != "" {
		return u.question
	}
	return u.heading
}

// langIndex holds the units one search language sees (entries in that
// language and entries without one), analysed with that language's rules.
// Keeping one per language also keeps word statistics per language.
type langIndex struct {
	units    []int32 // into Index.units
	terms    map[string]int32
	idf      []float64
	postings [][]posting // by term
	rareIDF  float64     // weight of a query word no unit has

	words     []string // vocabulary as written (folded), for typo lookup
	wordTerm  []int32
	wordFreq  []int32
	wordTypos *fuzzy
	stems     []string // by term
	stemTypos *fuzzy   // over term stems: catches typos in unseen word forms
	related   *relatives
	df        []int32
	headInfo  []float64 // by unit (local): IDF sum of its distinct head terms, for head coverage

	scratch sync.Pool // *accumulator
	memo    wordMemo  // query words resolved (search.go)
}

// posting is one unit that has a term, with the term's BM25F contribution
// divided by its IDF (precomputed: it depends only on the unit).
type posting struct {
	unit   int32 // into langIndex.units
	impact float32
	head   bool // the term is in the unit's question or heading
}

// visibleUnit is a unit a language index sees: its place in Index.units
// and its analysed form under the index's rules.
type visibleUnit struct {
	uid  int32
	form *unitForm
}

// buildLang builds the index of one search language from the units it
// sees, in order. prev, when not nil, is the previous build's index for the
// same language: its typo tables are carried over (see typoTable).
func buildLang(vis []visibleUnit, prev *langIndex) *langIndex {
	li := &langIndex{terms: make(map[string]int32), units: make([]int32, len(vis))}
	wordIDs := make(map[string]int32)
	ids := make([][]int32, len(vis)) // each unit's terms' ids, as in its form
	var headSum, bodySum int
	for local, v := range vis {
		li.units[local] = v.uid
		f := v.form
		tids := make([]int32, len(f.terms))
		for j, t := range f.terms {
			tids[j] = li.termID(t.stem)
			li.df[tids[j]]++
		}
		for _, w := range f.words {
			li.addWord(wordIDs, w.word, tids[w.term], w.n)
		}
		ids[local] = tids
		headSum += int(f.headLen)
		bodySum += int(f.bodyLen)
	}
	li.scratch.New = func() any { return newAccumulator(len(li.units)) }
	if len(li.units) == 0 {
		return li
	}
	n := float64(len(li.units))
	avgHead, avgBody := max(float64(headSum)/n, 1), max(float64(bodySum)/n, 1)
	li.postings = make([][]posting, len(li.df))
	for id, df := range li.df {
		li.postings[id] = make([]posting, 0, df)
	}
	li.idf = make([]float64, len(li.df))
	for id, df := range li.df {
		li.idf[id] = idf(n, float64(df))
	}
	li.headInfo = make([]float64, len(vis))
	for local, v := range vis {
		f := v.form
		bHead := 1 - b + b*float64(f.headLen)/avgHead
		bBody := 1 - b + b*float64(f.bodyLen)/avgBody
		for j, t := range f.terms {
			id := ids[local][j]
			tf := headWeight*float64(t.head)/bHead + bodyWeight*float64(t.body)/bBody
			imp := tf / (k1 + tf)
			li.postings[id] = append(li.postings[id], posting{
				unit:   int32(local),
				impact: float32(imp),
				head:   t.head > 0,
			})
			if t.head > 0 {
				li.headInfo[local] += li.idf[id]
			}
		}
	}
	// A word no unit has is as telling as the rarest word there is.
	li.rareIDF = idf(n, 1)
	li.stems = make([]string, len(li.terms))
	for s, id := range li.terms {
		li.stems[id] = s
	}
	var prevStems, prevWords *fuzzy
	if prev != nil {
		prevStems, prevWords = prev.stemTypos, prev.wordTypos
	} else {
		prev = &langIndex{}
	}
	li.stemTypos = typoTable(li.stems, li.terms, li.df, maxTypoKeys, prevStems, prev.stems)
	li.related = relativesFrom(prev.related, li.stems, li.terms)
	li.wordTypos = typoTable(li.words, wordIDs, li.wordFreq, maxTypoKeys, prevWords, prev.words)
	return li
}

// idf is BM25's inverse document frequency, never negative.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

func (li *langIndex) termID(stem string) int32 {
	id, ok := li.terms[stem]
	if !ok {
		id = int32(len(li.df))
		li.terms[stem] = id
		li.df = append(li.df, 0)
	}
	return id
}

// addWord records n occurrences of a written word for typo lookup (only
// words typoWord accepts reach it), with the term of its stem.
func (li *langIndex) addWord(ids map[string]int32, word string, termID, n int32) {
	id, ok := ids[word]
	if !ok {
		id = int32(len(li.words))
		ids[word] = id
		li.words = append(li.words, word)
		li.wordTerm = append(li.wordTerm, termID)
		li.wordFreq = append(li.wordFreq, 0)
	}
	li.wordFreq[id] += n
}

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
