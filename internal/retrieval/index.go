package retrieval

import (
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

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

// Build indexes entries. Q&A entries become one unit each; documents are
// split into passages (see SplitDocument). Entries with neither a question
// nor text are skipped. The index keeps entries (hits return them): do not
// change them afterwards.
func Build(entries []domain.KnowledgeEntry) *Index {
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
		// Untagged entries answer in every language, each analysed with
		// the rules of the language it is searched in.
		for _, l := range []string{"en", "ro", "ru"} {
			langs[l] = true
		}
	}
	for l := range langs {
		ix.langs[l] = ix.buildLang(l, func(e string) bool { return e == l || e == "" })
	}
	if untagged {
		ix.other = ix.buildLang("", func(e string) bool { return e == "" })
	}
	return ix
}

// unitTerms is one unit's analysed fields: term → frequency in each.
type unitTerms struct {
	tf               map[int32][2]int // [head, body]
	headLen, bodyLen int
}

func (ix *Index) buildLang(lang string, visible func(entryLang string) bool) *langIndex {
	li := &langIndex{terms: make(map[string]int32)}
	an := newAnalyzer(lang)
	wordIDs := make(map[string]int32)
	var all []unitTerms
	var headSum, bodySum int
	var buf []term
	for uid, u := range ix.units {
		if !visible(ix.entries[u.entry].Lang) {
			continue
		}
		li.units = append(li.units, int32(uid))
		ut := unitTerms{tf: make(map[int32][2]int)}
		for field, text := range [2]string{u.head(), u.text} {
			buf = an.terms(buf[:0], text)
			for _, t := range buf {
				id := li.termID(t.stem)
				f := ut.tf[id]
				f[field]++
				ut.tf[id] = f
				li.addWord(wordIDs, t, id)
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
			li.postings[id] = append(li.postings[id], posting{
				unit:   int32(local),
				impact: float32(imp),
				head:   f[0] > 0,
			})
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
	// A word no unit has is as telling as the rarest word there is.
	li.rareIDF = idf(n, 1)
	li.stems = make([]string, len(li.terms))
	for s, id := range li.terms {
		li.stems[id] = s
	}
	li.stemTypos = newFuzzy(li.stems)
	li.related = newRelatives(li.stems)
	li.wordTypos = newFuzzy(li.words)
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

// addWord records a written word for typo lookup. Words too short to be
// corrected and numbers are left out.
func (li *langIndex) addWord(ids map[string]int32, t term, termID int32) {
	if utf8.RuneCountInString(t.word) < 4 || hasDigit(t.word) {
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

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
