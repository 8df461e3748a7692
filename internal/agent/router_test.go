package agent

import (
	"context"
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
