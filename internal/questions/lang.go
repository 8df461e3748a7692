package questions

import (
	"strings"
	"unicode"

	"parley/internal/retrieval"
)

// textLang is the language a question is analysed in: the one its
// conversation was in (lang, the widget's), unless the text says
// otherwise, or a guess from the text when lang is unknown ("" or a
// language without a stemmer). Like the agent's choice of the language to
// search in (internal/agent/textlang.go), the script decides between
// Russian and the Latin languages: Cyrillic text is Russian whatever the
// widget's language, and Latin text in a Russian conversation is English
// or Romanian. Between English and Romanian the words decide only when the
// conversation's language does not say: Romanian is often typed without
// its diacritics, so its function words ("cum", "pot", "pentru") are the
// surer sign.
func textLang(text, lang string) string {
	cyrillic, latin := retrieval.ScriptCounts(text)
	switch {
	case cyrillic > latin:
		return "ru"
	case lang == "en" || lang == "ro":
		return lang
	case latin == 0 && lang != "ru":
		return lang // digits, emoji: nothing to go by
	}
	return latinLang(text)
}

// latinLang tells Romanian from English by the words only one of them
// uses: a letter only Romanian has (ă â î ș ț) or a common Romanian word,
// against common English words.
func latinLang(text string) string {
	ro, en := 0, 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		f := retrieval.Fold(w)
		switch {
		case strings.ContainsAny(w, "ăâîșşțţĂÂÎȘŞȚŢ"):
			ro += 2
		case romanianWords[f] || romanianEnding(f):
			ro++
		case englishWords[f]:
			en++
		}
	}
	if ro > en {
		return "ro"
	}
	return "en"
}

// romanianEnding reports whether a folded word ends as Romanian words do
// and English ones hardly ever: a verb of the polite plural ("livrati",
// "puteti", "primiti") or the first person ("primesc", "doresc"), or a
// noun with its article ("contul", "pretul",
// "magazinului", "facturile"; not English "-ful").
func romanianEnding(w string) bool {
	if len(w) < 5 {
		return false
	}
	for _, e := range []string{"ati", "eti", "iti", "esc", "ului", "ilor", "elor", "ile", "ele"} {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return strings.HasSuffix(w, "ul") && !strings.HasSuffix(w, "ful")
}

// Common words of questions, written folded, that the other language of
// the pair does not use as words (words both use, as "are" and "cat", are
// left out of English's list).
var (
	romanianWords = wordSet(`si sau ce cum unde cand cat cate cati este sunt aveti
		avem pot poate puteti se nu pentru care din cu mea meu mele mei imi ma
		vreau vrea acest aceasta asta daca dupa inca mai sa va voi ati fost
		livrare comanda produs produsul pret pe de la un una unui unei doua trei`)
	englishWords = wordSet(`the is do does did you your my how what where when
		why can could would should will i i'm it's don't to for of with and or
		there this that have has get from about any`)
)

func wordSet(list string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}
