package agent

import (
	"context"

	"parley/internal/domain"
)

// Backend is a Responder that serves only some agents, such as an LLM that
// needs a base URL and a model to be configured.
type Backend interface {
	Responder
	Enabled(a domain.Agent) bool
}

// Router answers each agent with the first backend enabled for it, and with
// Default (the built-in knowledge-base agent) otherwise.
type Router struct {
	Backends []Backend
	Default  Responder
}

func (r Router) Respond(ctx context.Context, req Request) (Reply, error) {
	for _, b := range r.Backends {
		if b.Enabled(req.Agent) {
			return b.Respond(ctx, req)
		}
	}
	return r.Default.Respond(ctx, req)
}

// RespondStream answers like Respond, streaming through the chosen
// responder when it can (see agent.RespondStream).
func (r Router) RespondStream(ctx context.Context, req Request, onDelta func(string)) (Reply, error) {
	for _, b := range r.Backends {
		if b.Enabled(req.Agent) {
			return RespondStream(ctx, b, req, onDelta)
		}
	}
	return RespondStream(ctx, r.Default, req, onDelta)
}

// Instant reports whether the responder that would answer a is instant.
func (r Router) Instant(a domain.Agent) bool {
	for _, b := range r.Backends {
		if b.Enabled(a) {
			return IsInstant(b, a)
		}
	}
	return IsInstant(r.Default, a)
}
