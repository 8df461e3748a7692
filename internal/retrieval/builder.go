package retrieval

import (
	"unicode/utf8"

	"parley/internal/domain"
	"parley/web/i18n"
)

// Builder builds the successive indexes of one knowledge base. It keeps
// what the last build made of each entry — its units and, per analysis
// rules, each unit's terms and words — so a build after an edit analyses
// only the entries that changed; the parts that depend on the whole base
// (term ids, statistics, postings, typo tables) are computed again from
// the kept forms, which costs a fraction of analysing the text. The index
// is the same as a fresh build's, field for field (see the tests).
//
// A Builder is not safe for concurrent use; the indexes it builds are.
type Builder struct {
	entries  map[string]*analysedEntry // the last build's entries with an id
	langs    map[[2]string]*langIndex  // the last build's language indexes (see Build)
	last     *Index                    // the last build's index
	analysed int                       // entries analysed by the last build, per rule set
}

// NewBuilder returns a Builder with nothing analysed yet.
func NewBuilder() *Builder { return &Builder{} }

// Build indexes entries. Q&A entries become one unit each; documents are
// split into passages (see SplitDocument). Entries with neither a question
// nor text are skipped. Entries are recognised from the previous build by
// their id and content; the index keeps its own copy of them, so the caller
// may reuse the slice.
func Build(entries []domain.KnowledgeEntry) *Index { return NewBuilder().Build(entries) }

// Analysed reports how many entries the last Build analysed, counting an
// entry once per rule set it was analysed with (English rules serve "en",
// "ru" and untagged searches, Romanian rules "ro"; see rulesOf). Entries
// it had analysed before, unchanged, do not count.
func (b *Builder) Analysed() int { return b.analysed }

// analysedEntry is an entry's content and what the index makes of it. The
// language is not part of it: it only decides which searches see the entry.
type analysedEntry struct {
	kind, question, answer, title, text string
	units                               []unit                // entry left 0: set per build
	forms                               map[string][]unitForm // by rule set: one per unit
}

func newAnalysedEntry(e domain.KnowledgeEntry) *analysedEntry {
	a := &analysedEntry{kind: e.Kind, question: e.Question, answer: e.Answer, title: e.Title, text: e.Text}
	if e.IsDocument() {
		for _, p := range SplitDocument(e.Title, e.Text) {
			a.units = append(a.units, unit{heading: p.Heading, text: p.Text})
		}
	} else if e.Question != "" || e.Answer != "" {
		a.units = append(a.units, unit{question: e.Question, text: e.Answer})
	}
	return a
}

// sameContent reports whether e has the content a was made from. Strings
// compare by length first, and a 200,000-character text compares in
// microseconds: cheaper and surer than hashing it.
func (a *analysedEntry) sameContent(e domain.KnowledgeEntry) bool {
	return a.kind == e.Kind && a.question == e.Question && a.answer == e.Answer && a.title == e.Title && a.text == e.Text
}

// entry is e with a's copy of the content: the units point into it, and an
// unchanged entry should not be held in memory twice.
func (a *analysedEntry) entry(e domain.KnowledgeEntry) domain.KnowledgeEntry {
	e.Kind, e.Question, e.Answer, e.Title, e.Text = a.kind, a.question, a.answer, a.title, a.text
	return e
}

// unitForm is one unit analysed under one rule set: what buildLang needs of
// its text, with each distinct stem and word once, in the order they first
// occur (head, then body), so term and word ids come out as if the text
// were read again.
type unitForm struct {
	terms            []formTerm
	words            []formWord // the words typo lookup may correct (see addWord)
	headLen, bodyLen int32      // terms in the head and the body, repeats included
}

type formTerm struct {
	stem       string
	head, body int32 // occurrences in the head and the body
}

type formWord struct {
	word string
	term int32 // into unitForm.terms: the word's stem
	n    int32 // occurrences
}

// formsFor returns a's units analysed under rules, analysing them with an
// the first time.
func (b *Builder) formsFor(a *analysedEntry, rules string, an *analyzer, sc *formScratch) []unitForm {
	if f, ok := a.forms[rules]; ok {
		return f
	}
	b.analysed++
	f := make([]unitForm, len(a.units))
	for i, u := range a.units {
		f[i] = sc.analyse(an, u)
	}
	if a.forms == nil {
		a.forms = make(map[string][]unitForm, 1)
	}
	a.forms[rules] = f
	return f
}

// formScratch is reused across the units of a build.
type formScratch struct {
	buf   []term
	terms map[string]int32
	words map[string]int32
}

func (sc *formScratch) analyse(an *analyzer, u unit) unitForm {
	if sc.terms == nil {
		sc.terms, sc.words = make(map[string]int32), make(map[string]int32)
	}
	clear(sc.terms)
	clear(sc.words)
	var f unitForm
	for field, text := range [2]string{u.head(), u.text} {
		sc.buf = an.terms(sc.buf[:0], text)
		for _, t := range sc.buf {
			ti, ok := sc.terms[t.stem]
			if !ok {
				ti = int32(len(f.terms))
				sc.terms[t.stem] = ti
				f.terms = append(f.terms, formTerm{stem: t.stem})
			}
			if field == 0 {
				f.terms[ti].head++
			} else {
				f.terms[ti].body++
			}
			if !typoWord(t.word) {
				continue
			}
			wi, ok := sc.words[t.word]
			if !ok {
				wi = int32(len(f.words))
				sc.words[t.word] = wi
				f.words = append(f.words, formWord{word: t.word, term: ti})
			}
			f.words[wi].n++
		}
		if field == 0 {
			f.headLen = int32(len(sc.buf))
		} else {
			f.bodyLen = int32(len(sc.buf))
		}
	}
	return f
}

// typoWord reports whether typo lookup may correct a query word into
// word: words too short to be corrected and numbers are left out.
func typoWord(word string) bool { return utf8.RuneCountInString(word) >= 4 && !hasDigit(word) }

// rulesOf is the analysis rule set of a search language. An analyzer reads
// Latin words by Romanian rules for "ro" and by English ones for any other
// language, and Cyrillic words always as Russian (stemLang): "en", "ru" and
// "" analyse text alike.
func rulesOf(lang string) string { return stemLang(scriptLatin, lang) }

// Build indexes entries, reusing what the last build made of the entries
// that did not change (see Builder).
func (b *Builder) Build(entries []domain.KnowledgeEntry) *Index {
	b.analysed = 0
	if b.unchanged(entries) {
		// An agent's version also changes with its name or config: the
		// index it has serves as it is.
		return b.last
	}
	ix := &Index{entries: make([]domain.KnowledgeEntry, len(entries)), langs: make(map[string]*langIndex)}
	next := make(map[string]*analysedEntry, len(entries))
	analysed := make([]*analysedEntry, len(entries))
	first := make([]int32, len(entries)) // each entry's first unit
	tagged := make(map[string]bool)
	untagged := false
	for i, e := range entries {
		a := b.entries[e.ID]
		if e.ID == "" || a == nil || !a.sameContent(e) {
			a = newAnalysedEntry(e)
		}
		if e.ID != "" {
			next[e.ID] = a
		}
		analysed[i], ix.entries[i], first[i] = a, a.entry(e), int32(len(ix.units))
		for _, u := range a.units {
			u.entry = i
			ix.units = append(ix.units, u)
		}
		if e.Lang == "" {
			untagged = true
		} else {
			tagged[e.Lang] = true
		}
	}
	b.entries = next

	// Each language index sees the entries in its language and the
	// untagged ones; a language no entry is tagged with sees the untagged
	// ones alone, as the index for other languages does. Indexes with the
	// same rules and the same entries are the same index, built once.
	analyzers := make(map[string]*analyzer)
	built := make(map[[2]string]*langIndex)
	var sc formScratch
	langIndex := func(lang string) *langIndex {
		tag := lang
		if !tagged[lang] {
			tag = ""
		}
		key := [2]string{rulesOf(lang), tag}
		if li := built[key]; li != nil {
			return li
		}
		an := analyzers[key[0]]
		if an == nil {
			an = newAnalyzer(key[0])
			analyzers[key[0]] = an
		}
		var vis []visibleUnit
		for i, e := range ix.entries {
			if e.Lang != tag && e.Lang != "" {
				continue
			}
			forms := b.formsFor(analysed[i], key[0], an, &sc)
			for k := range forms {
				vis = append(vis, visibleUnit{uid: first[i] + int32(k), form: &forms[k]})
			}
		}
		li := buildLang(vis, b.langs[key])
		built[key] = li
		return li
	}
	langs := make(map[string]bool, len(tagged)+3)
	for l := range tagged {
		langs[l] = true
	}
	if untagged {
		// Untagged entries answer in every language, each analysed with
		// the rules of the language it is searched in. A language Parley
		// speaks without rules of its own here (stemLang) gets the
		// generic ones, the same index as ix.other.
		for _, l := range i18n.Languages {
			langs[l] = true
		}
		ix.other = langIndex("")
	}
	for l := range langs {
		ix.langs[l] = langIndex(l)
	}
	b.langs, b.last = built, ix
	return ix
}

// unchanged reports whether entries are the last build's, in the same
// order, with the same languages and content.
func (b *Builder) unchanged(entries []domain.KnowledgeEntry) bool {
	if b.last == nil || len(entries) != len(b.last.entries) {
		return false
	}
	for i, e := range entries {
		was := b.last.entries[i]
		if e.ID == "" || e != was {
			return false
		}
	}
	return true
}

// Bytes estimates the memory the last index built and the analysed forms
// kept for the next one take: what a cache of indexes counts against its
// budget. It counts the slices, strings and map entries that grow with the
// knowledge, at their sizes on a 64-bit machine.
func (b *Builder) Bytes() int {
	n := 0
	for _, a := range b.entries {
		n += 200 + len(a.question) + len(a.answer) + len(a.title) + len(a.text)
		for _, u := range a.units {
			n += 56 + len(u.text) // passages joined from paragraphs are copies
		}
		for _, forms := range a.forms {
			for _, f := range forms {
				n += 56 + 24*len(f.terms) + 24*len(f.words)
			}
		}
	}
	for _, li := range b.langs {
		n += li.bytes()
	}
	return n
}

func (li *langIndex) bytes() int {
	n := 400 + 4*len(li.units) + 8*len(li.headInfo) + 56*len(li.units) // one search's accumulator
	// Per term: its map entry, stem, df, idf, posting list header and
	// relative; per posting 12 bytes; per word its entry, id, term, count.
	n += 100 * len(li.stems)
	for _, s := range li.stems {
		n += len(s)
	}
	for _, p := range li.postings {
		n += 12 * len(p)
	}
	n += 24 * len(li.words)
	for _, w := range li.words {
		n += len(w)
	}
	for _, f := range []*fuzzy{li.wordTypos, li.stemTypos} {
		if f == nil {
			continue
		}
		n += 8 * len(f.keys)
		for _, w := range f.words {
			n += 24 + 4*len(w)
		}
	}
	return n
}
