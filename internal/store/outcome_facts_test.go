package store

import (
	"testing"
	"time"

	"parley/internal/domain"
)

// What each message changes of the facts the outcome rule reads
// (NewMessage.Apply, which both stores write): a conversation scripted
// message by message reaches each outcome.
func TestApplyOutcomeFacts(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	visitor := NewMessage{Role: domain.RoleVisitor, Text: "hi"}
	answered := NewMessage{Role: domain.RoleAI, Text: "Yes.", RequireMode: domain.ModeAI}
	missed := NewMessage{Role: domain.RoleAI, Text: "I don't know.", RequireMode: domain.ModeAI, Unanswered: true}
	handoff := NewMessage{Role: domain.RoleAI, Text: "A person will answer.", Unanswered: true, SetWaiting: true}
	operator := NewMessage{Role: domain.RoleOperator, Text: "Hello, Ana here.", OperatorName: "Ana", SetMode: domain.ModeHuman}

	for _, c := range []struct {
		name string
		msgs []NewMessage
		want domain.Outcome
	}{
		{"greeting only", nil, domain.OutcomeAbandoned},
		{"a question left unanswered (the AI failed)", []NewMessage{visitor}, domain.OutcomeUnanswered},
		{"answered", []NewMessage{visitor, answered}, domain.OutcomeResolved},
		{"missed, then answered", []NewMessage{visitor, missed, visitor, answered}, domain.OutcomeResolved},
		{"answered, then missed", []NewMessage{visitor, answered, visitor, missed}, domain.OutcomeUnanswered},
		{"missed twice: handed off", []NewMessage{visitor, missed, visitor, handoff}, domain.OutcomeHandedOff},
		{"taken over by an operator's message", []NewMessage{visitor, answered, operator}, domain.OutcomeHandedOff},
	} {
		var conv domain.Conversation
		at := t0
		for _, m := range c.msgs {
			at = at.Add(time.Minute)
			conv = m.Apply(conv, at)
		}
		if got := conv.Outcome(); got != c.want {
			t.Errorf("%s: %s, want %s (%+v)", c.name, got, c.want, conv)
		}
	}

	// The handoff's time is the wait's start; the first response, the
	// operator's first message after it.
	var conv domain.Conversation
	for i, m := range []NewMessage{visitor, missed, visitor, handoff, visitor, operator, operator} {
		conv = m.Apply(conv, t0.Add(time.Duration(i)*time.Minute))
	}
	if !conv.HandedAt.Equal(t0.Add(3*time.Minute)) || !conv.FirstOperatorAt.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("handed at %v, first operator at %v; want +3m and +5m", conv.HandedAt, conv.FirstOperatorAt)
	}
	if d, ok := conv.FirstResponse(); !ok || d != 2*time.Minute {
		t.Fatalf("first response %v, want 2m", d)
	}
}
