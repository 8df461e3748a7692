// Package agentadmin is the rules for an account's agents, their widget
// keys and their knowledge; the management API and the dashboard both call
// it. Handlers decode a request, call a Service method and encode or render
// its answer; what may be saved, and what a change sets off (a new key
// replacing the old ones, the knowledge cache told), is decided here once.
//
// Errors are typed, so that each caller keeps its own words for them: the
// domain's (*domain.InvalidError, *domain.KnowledgeError,
// *domain.KnowledgeLimitError, *domain.AgentLimitError, domain.ErrNotFound,
// domain.ErrConflict), ErrName and *ConfigError. The management API turns
// them into its JSON errors (httpx.Status), the dashboard into message keys.
package agentadmin

import (
	"context"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/store"
)

// Store is what the Service reads and writes: agents, their keys and
// their knowledge, nothing else of the store.
type Store interface {
	store.Agents
	store.Keys
	store.Knowledge
	store.Identities
}

// Options are a Service's dependencies.
type Options struct {
	Store Store
	// Bounds are the instance's limits: agents per account, knowledge per
	// agent. Zero values: none.
	Bounds domain.Bounds
	// Invalidate is told when an agent changed in a way its knowledge
	// index is cached under, so the knowledge base starts the rebuild now
	// rather than on the next visitor's message (agent.KB.Invalidate).
	// Nil: nobody is told.
	Invalidate func(agentID string)
	// CheckEndpoint says whether a config may be saved beyond its own
	// rules: the LLM endpoint it names (llm.Responder.CheckAgentConfig).
	// Its refusal becomes a *ConfigError with Endpoint set. Nil: no check.
	CheckEndpoint func(ctx context.Context, config domain.AgentConfig) error
	// NewKey makes a widget key (default secret.WidgetKey); tests set it
	// to provoke a collision.
	NewKey func() string
	// Audit records agents', keys' and knowledge's changes in the
	// account's audit log; nil: none.
	Audit *audit.Service
}

// Service applies the rules. It holds no state of its own beyond its
// options: every decision that must hold under concurrency (the agent cap,
// the knowledge bounds, one active key after a rotation) is made by the
// store in a transaction, with the bounds the Service passes.
type Service struct{ o Options }

// New returns a Service on o.
func New(o Options) *Service {
	if o.Invalidate == nil {
		o.Invalidate = func(string) {}
	}
	if o.NewKey == nil {
		o.NewKey = newWidgetKey
	}
	return &Service{o: o}
}

// Bounds are the instance's limits the Service applies (the dashboard
// shows an agent's knowledge against them).
func (s *Service) Bounds() domain.Bounds { return s.o.Bounds }
