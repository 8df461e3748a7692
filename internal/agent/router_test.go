package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"parley/internal/domain"
)

type fixed struct {
	name    string
	enabled func(domain.Agent) bool
}

func (f fixed) Respond(context.Context, Request) (Reply, error) { return Reply{Text: f.name}, nil }
func (f fixed) Enabled(a domain.Agent) bool                     { return f.enabled(a) }

func TestRouter(t *testing.T) {
	llm := fixed{"llm", func(a domain.Agent) bool { return a.ID == "with-llm" }}
	r := Router{Backends: []Backend{llm}, Default: fixed{name: "kb"}}
	for id, want := range map[string]string{"with-llm": "llm", "plain": "kb"} {
		got, err := r.Respond(context.Background(), Request{Agent: domain.Agent{ID: id}})
		if err != nil || got.Text != want {
			t.Errorf("agent %s answered by %q (%v), want %q", id, got.Text, err, want)
		}
	}
}

// TestRouterInstant: an agent is answered instantly only when the responder
// that serves it is instant: the knowledge base yes, an LLM no.
func TestRouterInstant(t *testing.T) {
	llm := fixed{"llm", func(a domain.Agent) bool { return a.ID == "with-llm" }}
	kb := staticKB(t, nil)
	r := Router{Backends: []Backend{llm}, Default: kb}
	if IsInstant(r, domain.Agent{ID: "with-llm"}) {
		t.Error("an agent answered by an LLM is instant")
	}
	if !IsInstant(r, domain.Agent{ID: "plain"}) {
		t.Error("an agent answered by the knowledge base is not instant")
	}
	if IsInstant(Router{Default: fixed{name: "other"}}, domain.Agent{}) {
		t.Error("a responder that does not say it is instant is taken for one")
	}
}

// streamer streams its name in two pieces.
type streamer struct{ fixed }

func (s streamer) RespondStream(_ context.Context, _ Request, onDelta func(string)) (Reply, error) {
	onDelta(s.name[:1])
	onDelta(s.name[1:])
	return Reply{Text: s.name}, nil
}

// The router streams through a backend that can, and a responder that
// cannot (the knowledge base) gives its one answer as one piece.
func TestRouterRespondStream(t *testing.T) {
	llm := streamer{fixed{"llm", func(a domain.Agent) bool { return a.ID == "with-llm" }}}
	r := Router{Backends: []Backend{llm}, Default: fixed{name: "kb"}}
	for id, want := range map[string][]string{"with-llm": {"l", "lm"}, "plain": {"kb"}} {
		var got []string
		reply, err := RespondStream(context.Background(), r, Request{Agent: domain.Agent{ID: id}}, func(s string) { got = append(got, s) })
		if err != nil || reply.Text != strings.Join(want, "") || !slices.Equal(got, want) {
			t.Errorf("agent %s: reply %q (%v), deltas %q, want %q", id, reply.Text, err, got, want)
		}
	}
	if reply, err := RespondStream(context.Background(), r, Request{Agent: domain.Agent{ID: "with-llm"}}, nil); err != nil || reply.Text != "llm" {
		t.Errorf("without onDelta: %q, %v", reply.Text, err)
	}
}
