package retrieval

import (
	"strings"
	"unicode/utf8"
)

// Term is one analysed word of a text, as the index sees it: folded, its
// phrases rewritten, stop words gone.
type Term struct {
	Word string // folded surface form
	Stem string
	Lang string // the stemmer's language: "en", "ro", "ru", or "" for numbers and other scripts
}

// Terms returns the terms of text in language lang, in order. It is
// Analyze with each term's word and stemmer language, for callers that
// compare texts with each other (internal/questions) and need the
// synonyms and relatives of a stem in its own language.
func Terms(text, lang string) []Term {
	a := analyzer{lang: lang}
	var out []Term
	for _, t := range a.terms(nil, text) {
		out = append(out, Term{Word: t.word, Stem: t.stem, Lang: t.lang})
	}
	return out
}

// Synonyms returns the stems that lang's synonym groups make synonyms of
// stem, the same ones a search matches; nil when it has none. The slice is
// shared: callers must not change it.
func Synonyms(stem, lang string) []string {
	return synonyms[lang][stem]
}

// InSynonymGroup reports whether a stem is a word of the synonym groups,
// even one whose group's words all share its stem ("бесплатно",
// "бесплатный"): a help-desk subject of its own, which grouping questions
// (internal/questions) does not take for an elaboration.
func InSynonymGroup(stem, lang string) bool {
	_, ok := synonyms[lang][stem]
	return ok
}

// Related reports whether stems a and b are relatives as a search takes
// them (see relatives): different stems that begin the same way, for
// enough of their letters, or a short stem and the same stem with a
// derivational suffix ("pay" and "payment").
func Related(a, b string) bool {
	if a == b {
		return false
	}
	ar, br := []rune(a), []rune(b)
	if len(ar) > len(br) {
		ar, br = br, ar
	}
	if len(ar) < minPrefix {
		if len(ar) < 3 {
			return false
		}
		for _, suf := range derivations {
			if string(ar)+suf == string(br) {
				return true
			}
		}
		return false
	}
	n := commonPrefix(ar, br)
	return n >= minPrefix && float64(n) >= prefixShare*float64(len(ar))
}

// RelativeKeys are keys under which stem meets its relatives, for callers
// that look relatives up in an index of their own: two stems that are
// Related share at least one (not every pair sharing one is Related). A
// stem of minPrefix letters or more has its first minPrefix letters, and
// the short stem it derives from if it ends in a derivational suffix; a
// short stem has itself.
func RelativeKeys(stem string) []string {
	rs := []rune(stem)
	switch {
	case len(rs) < 3:
		return nil
	case len(rs) < minPrefix:
		return []string{stem}
	}
	keys := []string{string(rs[:minPrefix])}
	for _, suf := range derivations {
		if base, ok := strings.CutSuffix(stem, suf); ok {
			if n := utf8.RuneCountInString(base); n >= 3 && n < minPrefix {
				keys = append(keys, base)
			}
		}
	}
	return keys
}

// TermAnalyzer is Terms for many texts: it remembers the stems it has
// computed, which makes analysing thousands of short texts about twice as
// fast. Its zero value is ready; it is not safe for concurrent use.
type TermAnalyzer struct {
	stems map[string]map[string]string // stemmer language → word → stem
}

// Terms is Terms(text, lang).
func (ta *TermAnalyzer) Terms(text, lang string) []Term {
	if ta.stems == nil {
		ta.stems = make(map[string]map[string]string)
	}
	a := analyzer{lang: lang, stems: ta.stems}
	var out []Term
	for _, t := range a.terms(nil, text) {
		out = append(out, Term{Word: t.word, Stem: t.stem, Lang: t.lang})
	}
	return out
}
