package agent

import (
	"context"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"

	"parley/internal/domain"
)

// KnowledgeLoader reads an agent's knowledge entries (the store does).
type KnowledgeLoader func(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error)

// KB is the built-in knowledge-base agent: it answers with the stored answer
// whose question and answer share the most (rare) words with the visitor's
// text, and admits that it does not know when too little matches. It needs
// no network and no model. Indexes are built once per agent version and
// kept in memory, not rebuilt per request.
type KB struct {
	load KnowledgeLoader

	mu      sync.Mutex
	indexes map[string]*kbIndex // by agent id
}

func NewKB(load KnowledgeLoader) *KB {
	return &KB{load: load, indexes: make(map[string]*kbIndex)}
}

// minConfidence is the share of the visitor's (IDF-weighted) words that must
// match an entry for it to be the answer. Below it the agent says it does
// not know rather than guess.
const minConfidence = 0.3

func (kb *KB) Respond(ctx context.Context, req Request) (Reply, error) {
	idx, err := kb.index(ctx, req.Agent)
	if err != nil {
		return Reply{}, err
	}
	if best, ok := idx.best(req.Text, req.Lang); ok {
		return Reply{Text: best.Answer}, nil
	}
	t := phrases[req.Lang]
	return Reply{Text: t.dontKnow, Options: []string{t.human}}, nil
}

// Invalidate drops an agent's cached index; the next answer rebuilds it.
func (kb *KB) Invalidate(agentID string) {
	kb.mu.Lock()
	delete(kb.indexes, agentID)
	kb.mu.Unlock()
}

func (kb *KB) index(ctx context.Context, a domain.Agent) (*kbIndex, error) {
	kb.mu.Lock()
	idx := kb.indexes[a.ID]
	kb.mu.Unlock()
	// UpdatedAt changes with every edit of the agent, also one made by
	// another instance, so a stale index is never used for long.
	if idx != nil && idx.version.Equal(a.UpdatedAt) {
		return idx, nil
	}
	entries, err := kb.load(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	idx = buildIndex(entries, a.UpdatedAt)
	kb.mu.Lock()
	kb.indexes[a.ID] = idx
	kb.mu.Unlock()
	return idx, nil
}

type kbIndex struct {
	version time.Time
	entries []domain.KnowledgeEntry
	terms   []map[string]float64 // per entry: term → weight in the entry
	idf     map[string]float64
}

func buildIndex(entries []domain.KnowledgeEntry, version time.Time) *kbIndex {
	idx := &kbIndex{version: version, entries: entries, idf: make(map[string]float64)}
	df := make(map[string]int)
	for _, e := range entries {
		terms := make(map[string]float64)
		// Words of the question count fully, words of the answer half: the
		// question says what the entry is about.
		for _, w := range tokens(e.Answer) {
			terms[w] = 0.5
		}
		for _, w := range tokens(e.Question) {
			terms[w] = 1
		}
		for w := range terms {
			df[w]++
		}
		idx.terms = append(idx.terms, terms)
	}
	n := float64(len(entries))
	for w, d := range df {
		idx.idf[w] = math.Log(1 + n/float64(d))
	}
	return idx
}

// best returns the entry that matches text best, preferring entries in lang
// (and entries without a language) over entries in other languages.
func (idx *kbIndex) best(text, lang string) (domain.KnowledgeEntry, bool) {
	query := tokens(text)
	var total float64
	for _, w := range query {
		total += idx.weight(w)
	}
	if total == 0 {
		return domain.KnowledgeEntry{}, false
	}
	bestI, bestScore := -1, 0.0
	for i, e := range idx.entries {
		if e.Lang != "" && e.Lang != lang {
			continue
		}
		var s float64
		for _, w := range query {
			s += idx.weight(w) * idx.terms[i][w]
		}
		if s > bestScore {
			bestI, bestScore = i, s
		}
	}
	if bestI < 0 || bestScore/total < minConfidence {
		return domain.KnowledgeEntry{}, false
	}
	return idx.entries[bestI], true
}

// weight of a query word: words no entry has still count (they make the
// question less certain to be about any entry), as if rare.
func (idx *kbIndex) weight(w string) float64 {
	if v, ok := idx.idf[w]; ok {
		return v
	}
	return math.Log(1 + float64(len(idx.entries)+1))
}

// tokens splits text into folded, crudely stemmed words without stop words.
func tokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		f = fold(f)
		if stopWords[f] {
			continue
		}
		out = append(out, stem(f))
	}
	return out
}

// fold removes the diacritics that visitors often leave out.
var fold = strings.NewReplacer(
	"ă", "a", "â", "a", "î", "i", "ș", "s", "ş", "s", "ț", "t", "ţ", "t", "ё", "е",
	"é", "e", "è", "e", "ü", "u", "ö", "o", "ä", "a",
).Replace

// stem keeps a word's first six letters: a crude stand-in for a real
// stemmer that still joins "pricing"/"prices" and "livrare"/"livrarea".
func stem(w string) string {
	r := []rune(w)
	if len(r) > 6 {
		return string(r[:6])
	}
	return w
}

var stopWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, list := range []string{
		// English
		"a an and are as at be by can do does for from how i in is it me my of on or the to what when where which who why with you your we our",
		// Romanian (folded)
		"a al ale am ar are as au ca care ce cu de din dupa e este eu in la mai ma mi ne nu o pe pentru sa se si sunt te un una unei unui voi",
		// Russian (ё folded to е)
		"а в во вы да для до же за и из или как ли мне мы на не но о об от по с со то у что это я",
	} {
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
	}
	return m
}()

type phraseSet struct{ dontKnow, human string }

var phrases = map[string]phraseSet{
	"en": {"Sorry, I don't know the answer to that yet. A person from our team can help.", "Talk to a human"},
	"ro": {"Îmi pare rău, încă nu știu răspunsul la asta. O persoană din echipa noastră vă poate ajuta.", "Vorbește cu un om"},
	"ru": {"Извините, я пока не знаю ответа на этот вопрос. Вам может помочь сотрудник нашей команды.", "Поговорить с человеком"},
}
