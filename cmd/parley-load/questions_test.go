package main

import (
	"context"
	"testing"

	"parley/internal/agent"
	"parley/internal/demo"
	"parley/internal/domain"
	"parley/internal/handoff"
)

// The load benchmark measures chats the demo agent answers: its
// knowledge-base agent must answer each of the first questions, and the
// last must ask for a person. (Until 2026-11-23 the questions were about
// a shop, which the demo knows nothing of: every benchmarked chat was a
// miss and then a handoff.)
func TestQuestionsMatchTheDemo(t *testing.T) {
	t.Parallel()
	kb := agent.NewKB(agent.StaticKnowledge(demo.Knowledge), agent.KBOptions{})
	defer kb.Stop()
	a := domain.Agent{ID: "demo"}
	for i, q := range Questions {
		if i == len(Questions)-1 {
			if !handoff.AsksForHuman(q) {
				t.Errorf("%q comes after the answered questions but does not ask for a person", q)
			}
			continue
		}
		if handoff.AsksForHuman(q) {
			t.Errorf("%q asks for a person; the agent would not be asked", q)
		}
		r, err := kb.Respond(context.Background(), agent.Request{Agent: a, Text: q, Lang: "en"})
		if err != nil || r.Unanswered {
			t.Errorf("the demo agent does not answer %q: %+v, %v", q, r, err)
		}
	}
}
