package domain

import (
	"testing"
	"time"
)

// The outcome rule, case by case: what each fact does, and which wins
// when several hold.
func TestOutcome(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		c    Conversation
		want Outcome
	}{
		{"nothing asked", Conversation{}, OutcomeAbandoned},
		{"nothing asked, an operator wrote first", Conversation{HandedAt: at, FirstOperatorAt: at}, OutcomeAbandoned},
		{"asked and answered", Conversation{Asked: true, Answered: true}, OutcomeResolved},
		{"asked, never answered (the AI failed)", Conversation{Asked: true}, OutcomeUnanswered},
		{"answered, then the last reply missed", Conversation{Asked: true, Answered: true, Misses: 1}, OutcomeUnanswered},
		{"answered, marked not helpful", Conversation{Asked: true, Answered: true, NotHelpful: 1, Helpful: 2}, OutcomeUnanswered},
		{"answered and helpful", Conversation{Asked: true, Answered: true, Helpful: 1}, OutcomeResolved},
		{"handed off after answers", Conversation{Asked: true, Answered: true, HandedAt: at}, OutcomeHandedOff},
		{"handed off after misses and a thumbs-down", Conversation{Asked: true, Misses: 2, NotHelpful: 1, HandedAt: at}, OutcomeHandedOff},
		{"handed back to the AI: still handed off", Conversation{Asked: true, Answered: true, Mode: ModeAI, HandedAt: at}, OutcomeHandedOff},
	} {
		if got := c.c.Outcome(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// The handoff's time is the first one's; the first response counts from
// it, never below zero, and only when there is one.
func TestHandOffAndFirstResponse(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	c := Conversation{}.HandOff(at).HandOff(at.Add(time.Hour))
	if !c.HandedAt.Equal(at) {
		t.Fatalf("handed at %v, want the first handoff %v", c.HandedAt, at)
	}
	if _, ok := c.FirstResponse(); ok {
		t.Fatal("a first response before any operator wrote")
	}
	c.FirstOperatorAt = at.Add(90 * time.Second)
	if d, ok := c.FirstResponse(); !ok || d != 90*time.Second {
		t.Fatalf("first response %v %v, want 90s", d, ok)
	}
	c.FirstOperatorAt = at.Add(-time.Minute) // wrote before the handoff was recorded
	if d, ok := c.FirstResponse(); !ok || d != 0 {
		t.Fatalf("first response %v %v, want 0", d, ok)
	}
	if _, ok := (Conversation{FirstOperatorAt: at}).FirstResponse(); ok {
		t.Fatal("a first response without a handoff")
	}
}
