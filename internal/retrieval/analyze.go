// Package retrieval ranks knowledge-base entries against a visitor's
// question, offline and in memory: language-aware analysis (folding, stop
// words, Snowball stemming for English, Romanian and Russian), BM25F over a
// Q&A entry's question and answer or a document passage's heading and text,
// typo tolerance through a precomputed deletion neighbourhood of the
// vocabulary, and a confidence in [0,1] that callers threshold to decide
// whether to answer at all.
package retrieval

import (
	"strings"
	"unicode"
)

// script is the writing system of a token; it picks the stemmer.
type script uint8

const (
	scriptLatin script = iota
	scriptCyrillic
	scriptDigits
	scriptOther // letters of other scripts: kept whole, not stemmed
)

// token is one word of a text: its folded surface form and script.
type token struct {
	word   string
	script script
}

// maxTokenRunes bounds a token: longer runs are identifiers, hashes or
// garbage, never something a visitor would ask about.
const maxTokenRunes = 40

// tokenize splits text into folded words and numbers. Digit groups joined by
// / : . , or - stay one token ("24/7", "9:00", "9-17"), a single letter
// "e-" prefix joins the rest ("e-mail" → "email"), an apostrophe inside a
// word is dropped ("don't" → "dont"), and letters and digits are split
// ("50eur" → "50", "eur"). Single letters are dropped: they carry no topic.
func tokenize(text string) []token {
	rs := make([]rune, 0, len(text))
	for _, r := range text {
		if f := foldRune(r); f >= 0 {
			rs = append(rs, f)
		}
	}
	var out []token
	var cur []rune
	curScript := scriptOther
	flush := func() {
		if len(cur) > 0 && len(cur) <= maxTokenRunes && (curScript == scriptDigits || len(cur) > 1) {
			out = append(out, token{string(cur), curScript})
		}
		cur = cur[:0]
	}
	isLetter := func(i int) bool { return i < len(rs) && unicode.IsLetter(rs[i]) }
	isDigit := func(i int) bool { return i < len(rs) && unicode.IsDigit(rs[i]) }
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r):
			s := letterScript(r)
			if len(cur) > 0 && curScript != s {
				flush()
			}
			cur, curScript = append(cur, r), s
		case unicode.IsDigit(r):
			if len(cur) > 0 && curScript != scriptDigits {
				flush()
			}
			cur, curScript = append(cur, r), scriptDigits
		case len(cur) > 0 && curScript == scriptDigits && strings.ContainsRune("/:.,-", r) && isDigit(i+1):
			cur = append(cur, r)
		case len(cur) > 0 && curScript != scriptDigits && isApostrophe(r) && isLetter(i+1):
			// "don't": keep going
		case len(cur) == 1 && cur[0] == 'e' && r == '-' && isLetter(i+1):
			// "e-mail", "e-shop": keep going. Other one-letter prefixes
			// are Romanian clitics ("s-a", "n-am") and split.
		default:
			flush()
		}
	}
	flush()
	return out
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

func letterScript(r rune) script {
	switch {
	case r < 0x250: // Basic Latin through Latin Extended-B
		return scriptLatin
	case unicode.Is(unicode.Cyrillic, r):
		return scriptCyrillic
	case unicode.Is(unicode.Latin, r):
		return scriptLatin
	}
	return scriptOther
}

// stemLang is the language whose stemmer and stop words apply to a token:
// Cyrillic is always Russian; Latin follows the text's language, Romanian
// or else English (also for languages without a stemmer here).
func stemLang(s script, lang string) string {
	switch s {
	case scriptCyrillic:
		return "ru"
	case scriptLatin:
		if lang == "ro" {
			return "ro"
		}
		return "en"
	}
	return ""
}

// term is an analysed token: the folded word and its stem.
type term struct {
	word, stem string
	lang       string // of the stemmer used ("" for numbers and other scripts)
}

// analyzer turns text into terms for one language. It remembers stems it
// has computed, which makes building an index several times faster; an
// analyzer is not safe for concurrent use.
type analyzer struct {
	lang  string
	stems map[string]map[string]string // stemmer language → word → stem
}

func newAnalyzer(lang string) *analyzer {
	return &analyzer{lang: lang, stems: make(map[string]map[string]string)}
}

// terms appends the terms of text (stop words removed) to dst.
func (a *analyzer) terms(dst []term, text string) []term {
	for _, w := range a.words(text) {
		dst = append(dst, term{w.word, a.stem(w.lang, w.word), w.lang})
	}
	return dst
}

// word is a word of a text as the analyzer sees it before stemming:
// folded, phrases rewritten, with the language of its stemmer.
type word struct {
	word, lang string
}

// words are the words of text, stop words removed, not yet stemmed.
func (a *analyzer) words(text string) []word {
	tokens := tokenize(text)
	// Latin words follow the text's language's rules, Cyrillic words
	// always Russian ones (see stemLang); a rule only matches words of
	// its own script.
	tokens = rewritePhrases(tokens, stemLang(scriptLatin, a.lang))
	tokens = rewritePhrases(tokens, "ru")
	out := make([]word, 0, len(tokens))
	for _, t := range tokens {
		sl := stemLang(t.script, a.lang)
		if sl != "" && stopWords[sl][t.word] {
			continue
		}
		out = append(out, word{t.word, sl})
	}
	return out
}

func (a *analyzer) stem(sl, word string) string {
	if sl == "" {
		return word
	}
	if a.stems == nil {
		return stem(sl, word)
	}
	cache := a.stems[sl]
	if cache == nil {
		cache = make(map[string]string)
		a.stems[sl] = cache
	}
	s, ok := cache[word]
	if !ok {
		s = stem(sl, word)
		cache[word] = s
	}
	return s
}

// Analyze returns the index terms of text as the index sees them in
// language lang: folded, without stop words, stemmed.
func Analyze(text, lang string) []string {
	a := analyzer{lang: lang}
	var out []string
	for _, t := range a.terms(nil, text) {
		out = append(out, t.stem)
	}
	return out
}

// ScriptCounts counts the letters of text in Cyrillic and in Latin
// script: what tells Russian from Parley's Latin languages, for the agent's
// choice of the language to search in and the grouping of questions.
func ScriptCounts(text string) (cyrillic, latin int) {
	for _, r := range text {
		switch {
		case r < 0x80:
			if 'a' <= r|0x20 && r|0x20 <= 'z' {
				latin++
			}
		case !unicode.IsLetter(r):
		case letterScript(r) == scriptCyrillic:
			cyrillic++
		case letterScript(r) == scriptLatin:
			latin++
		}
	}
	return cyrillic, latin
}
