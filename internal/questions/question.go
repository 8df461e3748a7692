package questions

import (
	"slices"
	"unicode"

	"parley/internal/retrieval"
)

// question is an item as the comparison sees it: its distinct terms, each
// with a weight, in the language it was analysed in.
type question struct {
	lang   string
	terms  []qterm
	weight float64 // sum of the terms' weights
}

// qterm is one distinct stem of a question.
type qterm struct {
	id     int32 // in the vocabulary the question was analysed with
	weight float64
	// plain: a word of full weight that no synonym group knows (see
	// similarity's allowance for elaborations).
	plain bool
}

// numberWeight is how much a number counts against a word: "3 days ago"
// and "order 12345" are a visitor's circumstances, rarely what is asked.
const numberWeight = 0.3

// analyse turns an item into a question: the retrieval analyzer's terms
// (folded, phrases rewritten, stop words dropped, stemmed), each stem once,
// named in v.
func analyse(v *vocabulary, it Item) question {
	lang, terms := analysed(&v.analyzer, it)
	return v.question(lang, terms)
}

// analysed is the language an item is read in and its terms: the part of
// analyse that needs no vocabulary, and so can run for many items at once.
func analysed(ta *retrieval.TermAnalyzer, it Item) (string, []retrieval.Term) {
	lang := textLang(it.Text, it.Lang)
	return lang, ta.Terms(it.Text, lang)
}

// question names an item's terms in v and weighs them.
func (v *vocabulary) question(lang string, terms []retrieval.Term) question {
	q := question{lang: lang}
	for _, t := range terms {
		id := v.id(q.lang, t.Lang, t.Stem)
		if q.has(id) {
			continue
		}
		w := 1.0
		switch {
		case isNumber(t.Word):
			w = numberWeight
		case light[t.Lang][t.Stem]:
			w = lightWeight
		}
		search, extra := synonymsOf(t.Stem, t.Lang, q.lang)
		plain := w == 1 && len(search) == 0 && len(extra) == 0 && !retrieval.InSynonymGroup(t.Stem, t.Lang)
		q.terms = append(q.terms, qterm{id: id, weight: w, plain: plain})
		q.weight += w
	}
	return q
}

func (q *question) has(id int32) bool {
	for _, t := range q.terms {
		if t.id == id {
			return true
		}
	}
	return false
}

func isNumber(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// signature is the same string for questions with the same terms in the
// same language, whatever their order.
func (q *question) signature() string {
	ids := make([]int32, len(q.terms))
	for i, t := range q.terms {
		ids[i] = t.id
	}
	slices.Sort(ids)
	b := []byte(q.lang)
	for _, id := range ids {
		b = append(b, 0, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
	}
	return string(b)
}

// least is the smallest weight q can count with in a comparison: its
// weight, less one plain word's allowance when it has a plain word (see
// similarity).
func (q *question) least() float64 {
	for _, t := range q.terms {
		if t.plain {
			return q.weight - (1 - lightWeight)
		}
	}
	return q.weight
}
