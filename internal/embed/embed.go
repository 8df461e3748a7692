// Package embed turns knowledge passages into vectors through an
// OpenAI-compatible embeddings API, for hybrid retrieval (docs/agent.md,
// "Hybrid retrieval"). It resolves which backend an agent uses, the
// instance's or the one its owner put in the agent's "embed" config, and
// calls an owner's endpoint only through the outbound guard.
package embed

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"parley/internal/domain"
	"parley/internal/openaicompat"
	"parley/internal/outbound"
)

// Config is the instance's embeddings backend (PARLEY_EMBED_*).
type Config struct {
	BaseURL, APIKey, Model string
	// NoAgentEndpoints ignores the base URL and key in agents' configs
	// (PARLEY_LLM_AGENT_ENDPOINTS=false), as for the LLM; agents may
	// still choose the model.
	NoAgentEndpoints bool
	// Batch is how many texts go in one request; 0 is
	// openaicompat.DefaultEmbedBatch.
	Batch int
	// MaxRetries of a request (as for the LLM); 0 means 2, negative none.
	MaxRetries int
}

// Backend is an agent's resolved embeddings backend.
type Backend struct {
	BaseURL, APIKey, Model string
	// Tenant says the owner chose the endpoint: it is called through the
	// outbound guard.
	Tenant bool
}

// Enabled reports whether there is something to call.
func (b Backend) Enabled() bool { return b.BaseURL != "" && b.Model != "" }

// Embedder embeds texts for agents.
type Embedder struct {
	def     Config
	http    *http.Client
	guard   *outbound.Guard
	guarded *http.Client
}

// New returns an embedder; guard nil refuses private addresses.
func New(def Config, guard *outbound.Guard) *Embedder {
	if guard == nil {
		guard = outbound.New(outbound.Options{})
	}
	hc := &http.Client{Transport: http.DefaultTransport}
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		hc = &http.Client{Transport: t.Clone()}
	}
	return &Embedder{def: def, http: hc, guard: guard, guarded: guard.Client()}
}

// For resolves agent a's backend: its "embed" members over the instance's.
// The instance's key goes only to the instance's endpoint, so an owner
// cannot collect it on a server of theirs.
func (e *Embedder) For(a domain.Agent) Backend { return resolve(e.def, a.Config.Embed) }

func resolve(def Config, over domain.EmbedConfig) Backend {
	base, key := strings.TrimSpace(over.BaseURL), strings.TrimSpace(over.Key())
	if def.NoAgentEndpoints {
		base, key = "", ""
	}
	b := Backend{BaseURL: def.BaseURL, APIKey: def.APIKey, Model: def.Model}
	if m := strings.TrimSpace(over.Model); m != "" {
		b.Model = m
	}
	if base != "" && !sameEndpoint(base, def.BaseURL) {
		b.BaseURL, b.APIKey, b.Tenant = base, "", true
	}
	if key != "" {
		b.APIKey = key
	}
	return b
}

func sameEndpoint(a, b string) bool {
	norm := func(s string) string { return strings.TrimRight(strings.TrimSpace(s), "/") }
	return strings.EqualFold(norm(a), norm(b))
}

// Embed returns one vector per text from backend b, which For resolved.
func (e *Embedder) Embed(ctx context.Context, b Backend, texts []string) ([][]float32, error) {
	if !b.Enabled() {
		return nil, fmt.Errorf("embed: no base URL or model configured")
	}
	hc := e.http
	if b.Tenant {
		hc = e.guarded
	}
	retries := e.def.MaxRetries
	switch {
	case retries == 0:
		retries = 2
	case retries < 0:
		retries = 0
	}
	c := &openaicompat.Client{BaseURL: b.BaseURL, APIKey: b.APIKey, HTTP: hc}
	return c.Embed(ctx, openaicompat.EmbedRequest{Model: b.Model, Input: texts, Batch: e.def.Batch},
		openaicompat.Retry{Max: retries, MaxDelay: 10 * time.Second, Final: outbound.IsRefusal})
}

// EndpointError is an agent config whose embeddings endpoint will not be
// called; Field is "config.embed.base_url".
type EndpointError struct {
	Field, URL string
	Err        error
}

func (e *EndpointError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *EndpointError) Unwrap() error { return e.Err }

// CheckAgentConfig says, when an agent's config is saved, whether the
// embeddings endpoint its owner chose may be called (as
// llm.Responder.CheckAgentConfig does for the LLM's).
func (e *Embedder) CheckAgentConfig(ctx context.Context, c domain.AgentConfig) error {
	b := resolve(e.def, c.Embed)
	if !b.Tenant {
		return nil
	}
	if err := e.guard.CheckURL(ctx, b.BaseURL); err != nil {
		return &EndpointError{Field: "config.embed.base_url", URL: b.BaseURL, Err: err}
	}
	return nil
}
