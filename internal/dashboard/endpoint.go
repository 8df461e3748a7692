package dashboard

import (
	"errors"

	"parley/internal/agentadmin"
	"parley/internal/embed"
	"parley/internal/outbound"
)

// refusedEndpoint says where a refused LLM or embeddings endpoint leads,
// for the message (Message: "agent.llm.refused" or "agent.embed.refused")
// at the top of the agent page.
type refusedEndpoint struct {
	Message string
	Target  string // "127.0.0.1", or "localhost (127.0.0.1)" for a name
	Class   string // message key of the address's kind: "outbound.loopback"
}

// configRefusal reads agentadmin's refusal of the settings form: a name
// or a config it does not take. A refused address comes back as what the
// page explains; any other refusal of the LLM or embeddings endpoint (not
// an http(s) URL) and a breach of the config's own rules as a message key.
// Other errors, and nil, are neither. The embeddings backend's refusal
// (config.embed.base_url) is told from the LLM's by its error type: the
// check runs both, and the first refusal is the one reported.
func configRefusal(err error) (*refusedEndpoint, string) {
	var ce *agentadmin.ConfigError
	switch {
	case errors.Is(err, agentadmin.ErrName):
		return nil, "agent.name.invalid"
	case !errors.As(err, &ce):
		return nil, ""
	case !ce.Endpoint:
		return nil, "agent.invalid" // a stored config the form kept, refused by the rules the API applies
	}
	which := "agent.llm."
	if _, ok := errors.AsType[*embed.EndpointError](ce.Err); ok {
		which = "agent.embed."
	}
	var refused *outbound.Refusal
	if !errors.As(ce.Err, &refused) {
		return nil, which + "invalid"
	}
	target := refused.Addr.String()
	if refused.Host != "" {
		target = refused.Host + " (" + target + ")"
	}
	return &refusedEndpoint{Message: which + "refused", Target: target, Class: "outbound." + refused.Class.Key()}, ""
}
