// Package handoff decides when a visitor should be handed to a human: when
// they ask for one, or when the agent could not answer twice in a row. It
// only decides; the chat service marks the conversation as waiting, and an
// operator's takeover (spec: "human-handled") is a separate, explicit step.
package handoff

import (
	"strings"

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
