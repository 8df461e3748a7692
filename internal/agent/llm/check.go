package llm

import (
	"context"
	"fmt"

	"parley/internal/domain"
)

// EndpointError is an agent config whose LLM endpoint will not be called:
// not an http(s) URL, or it leads to an address the outbound guard refuses.
type EndpointError struct {
	// Field names what the owner wrote: "config.llm.base_url", or
	// "config.llm.provider" when the refused URL is the provider's
	// well-known one.
	Field string
	URL   string // the endpoint, as merged
	Err   error  // an *outbound.URLError or *outbound.Refusal
}

func (e *EndpointError) Error() string {
	if e.Field == "config.llm.provider" {
		return fmt.Sprintf("%s: this provider's endpoint is %s: %v", e.Field, e.URL, e.Err)
	}
	return e.Field + ": " + e.Err.Error()
}

func (e *EndpointError) Unwrap() error { return e.Err }

// CheckAgentConfig says, when an agent's config is saved, whether the LLM
// endpoint it names may be called: nil, or an *EndpointError with the
// reason. Only endpoints the owner chose are checked; the instance's own
// (set by the administrator, or named again by the agent) is trusted, and
// with agent endpoints off there is nothing the owner can choose.
//
// This tells the owner at once; it is not the protection. A config stored
// earlier, or a name that resolves elsewhere later, is refused on every
// dial (see package outbound).
func (r *Responder) CheckAgentConfig(ctx context.Context, c domain.AgentConfig) error {
	over, _ := agentOverride(c)
	cfg := merge(r.def, over)
	if !cfg.tenantEndpoint {
		return nil
	}
	err := r.guard.CheckURL(ctx, cfg.BaseURL)
	if err == nil {
		return nil
	}
	field := "config.llm.base_url"
	if over.BaseURL == "" {
		field = "config.llm.provider"
	}
	return &EndpointError{Field: field, URL: cfg.BaseURL, Err: err}
}
