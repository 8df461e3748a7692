package handoff

import (
	"testing"

	"parley/internal/domain"
)

func TestAsksForHuman(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Talk to a human", true},
		{"vorbește cu un om", true},
		{"Поговорить с человеком", true},
		{"human please", true},
		{"Can I talk to an operator?", true},
		{"I want a real person", true},
		{"Vreau să vorbesc cu un om", true},
		{"Doresc un operator uman", true},
		{"Позовите оператора", true},
		{"Мне нужен живой человек", true},
		{"What are your opening hours?", false},
		{"Cât costă livrarea?", false},
		{"Сколько стоит доставка?", false},
		{"", false},
		{"How much per person?", false},
		{"Can someone tell me the price?", false},
		{"homework", false},         // not the word "om" or "human"
		{"Romania shipping", false}, // "om" inside a word does not count
		{"Operator please", true},
		{"a real person pls", true},
		{"i need a human", true},
		{"how can I speak with someone from your team?", true},
		{"operator uman vă rog", true},
		{"Aș vrea să vorbesc cu un operator", true},
		{"pot sa vorbesc cu cineva?", true},
		{"соедините с оператором", true},
		{"можно поговорить с живым человеком?", true},
		{"оператора пожалуйста", true},
		// Questions about operators and takeovers are for the agent.
		{"what happens when an operator takes over?", false},
		{"Can a human operator take over the conversation?", false},
		{"Which languages does the agent speak?", false},
		{"are you human?", false},
		{"Poate un operator uman să preia conversația?", false},
		{"ce se întâmplă când preia un operator?", false},
		{"Может ли оператор подключиться к разговору?", false},
		{"что будет, когда оператор возьмёт разговор?", false},
		{"ты человек?", false},
		{"my mobile operator charged me twice for the same order and I would like to know why this happened", false},
	}
	for _, tt := range tests {
		if got := AsksForHuman(tt.text); got != tt.want {
			t.Errorf("AsksForHuman(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestSettingsOf(t *testing.T) {
	// The defaults, from the catalogues (handoff.message).
	const (
		defEN = "I've asked a person from our team to join. They will answer here shortly."
		defRO = "Am rugat o persoană din echipa noastră să se alăture. Vă va răspunde aici în curând."
	)
	tests := []struct {
		config  string
		enabled bool
		en, ro  string
	}{
		{`{}`, true, defEN, defRO},
		{`not json`, true, defEN, defRO},
		{`{"handoff":{"enabled":false}}`, false, defEN, defRO},
		{`{"handoff":{"message":"Ana will be with you."}}`, true, "Ana will be with you.", "Ana will be with you."},
		{`{"handoff":{"message":{"ro":"Vine Ana."}}}`, true, defEN, "Vine Ana."},
		{`{"handoff":{"enabled":"yes"}}`, true, defEN, defRO},
	}
	for _, tt := range tests {
		s := SettingsOf(domain.DecodeAgentConfig([]byte(tt.config)))
		if s.Enabled != tt.enabled || s.Message("en") != tt.en || s.Message("ro") != tt.ro {
			t.Errorf("SettingsOf(%s) = %v %q %q, want %v %q %q", tt.config, s.Enabled, s.Message("en"), s.Message("ro"), tt.enabled, tt.en, tt.ro)
		}
	}
	if SettingsOf(domain.AgentConfig{}).Message("de") != defEN {
		t.Error("an unknown language should fall back to English")
	}
}
