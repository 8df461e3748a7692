package agent

import (
	"strings"

	"parley/internal/retrieval"
)

// messageLang is the language to search the knowledge in and answer in
// for a message sent in a conversation in lang. The widget's language is
// the page's, or the browser's, and visitors often write in another: a
// Russian speaker on an English page writes Cyrillic, and searching the
// English entries for it finds nothing (or a wrong one). The script tells
// Russian from the Latin languages for certain, so a Cyrillic message is
// searched in Russian and a Latin one in a Russian conversation in English,
// or in Romanian when two of its words have Romanian letters (ă â î ș ț).
// Between English and Romanian the conversation's language stands: the
// letters cannot tell them apart (Romanian is often typed without its
// diacritics, and English messages name places like Bălți).
func messageLang(text, lang string) string {
	cyrillic, latin := retrieval.ScriptCounts(text)
	switch {
	case cyrillic > latin:
		return "ru"
	case latin > cyrillic && lang == "ru":
		if romanianWords(text) >= 2 {
			return "ro"
		}
		return "en"
	}
	return lang
}

// romanianWords counts the words of text with a letter only Romanian of
// Parley's languages has.
func romanianWords(text string) int {
	n := 0
	for _, w := range strings.Fields(text) {
		if strings.ContainsAny(strings.ToLower(w), "ăâîșşțţ") {
			n++
		}
	}
	return n
}
