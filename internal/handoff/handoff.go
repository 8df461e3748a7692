// Package handoff decides when a visitor should be handed to a human: when
// they ask for one, or when the agent could not answer twice in a row. It
// only decides; the chat service marks the conversation as waiting, and an
// operator's takeover (spec: "human-handled") is a separate, explicit step.
package handoff

import (
	"slices"
	"strings"
	"unicode"

	"parley/internal/domain"
	"parley/web/i18n"
)

// MissesBeforeHandoff is how many unanswered replies in a row ask for a
// human on the visitor's behalf.
const MissesBeforeHandoff = 2

// Settings are an agent's handoff settings, from its config
// (domain.HandoffConfig):
//
//	"handoff": {"enabled": true, "message": "…"}            one text for every language
//	"handoff": {"enabled": true, "message": {"en": "…", "ro": "…", "ru": "…"}}
//
// Handoff is on unless "enabled" is false.
type Settings struct {
	Enabled  bool
	messages map[string]string // by language; "" is for every language
}

// SettingsOf reads the handoff settings of an agent's config. Its messages
// are the config's, shared: read, never changed.
func SettingsOf(c domain.AgentConfig) Settings {
	h := c.Handoff
	s := Settings{Enabled: h.On(), messages: h.Messages}
	if one := strings.TrimSpace(h.Message); one != "" {
		s.messages = map[string]string{"": one}
	}
	return s
}

// Message is what the visitor is told once a person has been asked.
func (s Settings) Message(lang string) string {
	if m := strings.TrimSpace(s.messages[lang]); m != "" {
		return m
	}
	if m := strings.TrimSpace(s.messages[""]); m != "" {
		return m
	}
	return i18n.Text(lang, "handoff.message") // English for other languages
}

// talkToHumanLower holds the "Talk to a human" quick reply of every
// language (the agent offers it, catalogue key reply.human) in lower case,
// made once: AsksForHuman runs on every chat.
var talkToHumanLower = func() []string {
	var l []string
	for _, lang := range i18n.Languages {
		l = append(l, strings.ToLower(i18n.Text(lang, "reply.human")))
	}
	return l
}()

// AsksForHuman reports whether the visitor's text asks for a person: one of
// the "Talk to a human" quick replies, or a short message built around a
// word for a person or an operator in English, Romanian or Russian. Long
// messages that merely mention such a word ("my operator charged me twice
// and …") are questions for the agent, not requests for a human.
func AsksForHuman(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if slices.Contains(talkToHumanLower, t) {
		return true
	}
	words := strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) == 0 || len(words) > 8 {
		return false
	}
	joined := " " + strings.Join(words, " ") + " "
	for _, p := range humanPhrases {
		if strings.Contains(joined, " "+p+" ") {
			return true
		}
	}
	for _, w := range words {
		if humanWords[w] {
			return true
		}
		for _, p := range humanPrefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// humanWords are whole words (lower case) that ask for a person. Words like
// "person" alone are left out: "price per person" is not a request.
var humanWords = map[string]bool{
	"human": true, "humans": true, "operator": true, // English
	"om": true, "omul": true, "operatorul": true, "uman": true, // Romanian ("operator uman")
}

// humanPhrases are word sequences that ask for a person.
var humanPhrases = []string{"real person", "live agent", "persoană reală", "persoana reala"}

// humanPrefixes catch Russian inflections (оператора, человеком, …).
var humanPrefixes = []string{"оператор", "человек", "живого", "живой"}
