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
