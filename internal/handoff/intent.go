package handoff

import (
	"slices"
	"strings"
	"unicode"

	"parley/internal/retrieval"
	"parley/web/i18n"
)

// talkToHuman holds the "Talk to a human" quick reply of every language
// (the agent offers it, catalogue key reply.human), folded, made once:
// AsksForHuman runs on every chat.
var talkToHuman = func() []string {
	var l []string
	for _, lang := range i18n.Languages {
		l = append(l, strings.Join(words(i18n.Text(lang, "reply.human")), " "))
	}
	return l
}()

// maxRequestWords bounds a request for a person: a longer message that
// names one ("my mobile operator charged me twice and …") is a question
// for the agent.
const maxRequestWords = 12

// AsksForHuman reports whether the visitor's text asks for a person: one of
// the "Talk to a human" quick replies; a short message that asks to talk
// to, be put through to, or get a person ("can I talk to a human?",
// "vreau să vorbesc cu un operator", "позовите оператора"); or one that
// names a person and nothing else ("operator please", "un om", "живой
// человек"). A question *about* people ("what happens when an operator
// takes over?", "poate un operator să preia conversația?", "может ли
// оператор подключиться?") asks for no one: the agent answers it from the
// knowledge. Before, any short message with such a word handed over, so
// the demo's own suggested question never got its answer.
func AsksForHuman(text string) bool {
	ws := words(text)
	if len(ws) == 0 || len(ws) > maxRequestWords {
		return false
	}
	if slices.Contains(talkToHuman, strings.Join(ws, " ")) {
		return true
	}
	// A request names its verb before the person ("talk to a human");
	// "which languages does the agent speak?" is a question about one.
	person, request, bare := false, hasPhrase(ws, requestPhrases), true
	for _, w := range ws {
		p := isPerson(w)
		if p && request {
			return true
		}
		person = person || p
		request = request || isRequest(w)
		bare = bare && (p || politeFiller[w])
	}
	return person && bare
}

// words are text's folded words (lower case, no diacritics).
func words(text string) []string {
	return strings.FieldsFunc(retrieval.Fold(text), func(r rune) bool { return !unicode.IsLetter(r) })
}

// hasPhrase reports whether ws holds one of phrases.
func hasPhrase(ws []string, phrases [][]string) bool {
	for _, p := range phrases {
		for i := 0; i+len(p) <= len(ws); i++ {
			if slices.Equal(ws[i:i+len(p)], p) {
				return true
			}
		}
	}
	return false
}

// isPerson reports whether w names a person to talk to. "person" and
// "someone" alone are too common ("price per person", "can someone tell
// me the price?") to count without a request verb, which AsksForHuman
// requires unless the message is nothing but such words.
func isPerson(w string) bool {
	if personWords[w] {
		return true
	}
	for _, p := range personPrefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

func isRequest(w string) bool {
	if requestWords[w] {
		return true
	}
	for _, p := range requestPrefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

var personWords = set(
	"human", "humans", "person", "operator", "operators", "agent", "someone", "somebody", "representative", "rep", "staff", "manager", "employee", "people", "consultant",
	"om", "omul", "oameni", "operatorul", "operatorului", "operatori", "persoana", "persoane", "uman", "umana", "cineva", "consultantul", "angajat", "agentul",
)

// personPrefixes catch Russian inflections (оператора, человеком, живым).
var personPrefixes = []string{"оператор", "человек", "живо", "живы", "сотрудник", "менеджер", "консультант", "специалист"}

// requestWords ask to talk to, reach or be given someone. "take over" is
// not one: visitors ask what happens when an operator takes over.
var requestWords = set(
	"talk", "speak", "chat", "connect", "transfer", "put", "get", "want", "need", "call", "contact", "reach", "give", "let", "escalate",
	"vorbesc", "vorbi", "vorbim", "vorbeasca", "vorbesti", "discut", "discuta", "conectati", "conecteaza", "conectezi", "conecta", "legatura",
	"transferati", "transfera", "vreau", "doresc", "dati", "dati-mi", "chemati", "cheama", "chema", "contactez", "contacta", "nevoie",
	"хочу", "хотел", "хотела", "нужен", "нужна", "нужно", "дайте", "давайте", "подключите", "подключи", "можно",
)

// requestPrefixes catch Russian verbs in their forms (поговорить, свяжите,
// соедините, переключите, позовите, переведите).
var requestPrefixes = []string{"поговор", "говор", "пообщ", "общат", "связ", "соедин", "переключ", "позов", "позва", "зовит", "переведит"}

var requestPhrases = [][]string{{"put", "me", "through"}, {"face", "legatura"}}

// politeFiller are the words a bare request may hold besides a person
// ("a human, please", "un operator vă rog", "живой человек, пожалуйста").
var politeFiller = set(
	"a", "an", "the", "please", "pls", "plz", "real", "live", "now", "asap", "urgent", "urgently", "i", "me", "to", "with",
	"va", "te", "rog", "o", "cu", "real", "reala", "acum", "urgent", "un",
	"пожалуйста", "мне", "с", "срочно", "нужен",
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
