package dashboard

import (
	"encoding/json"
	"errors"
	"net/http"

	"parley/internal/outbound"
)

// refusedEndpoint says where a refused LLM endpoint leads, for the
// message "agent.llm.refused" at the top of the agent page.
type refusedEndpoint struct {
	Target string // "127.0.0.1", or "localhost (127.0.0.1)" for a name
	Class  string // message key of the address's kind: "outbound.loopback"
}

// checkEndpoint applies Options.CheckAgentConfig to the config the
// settings form would save. A refused address comes back as what the page
// explains; any other refusal (not an http(s) URL) as a message key.
func (d *Dashboard) checkEndpoint(r *http.Request, cfg json.RawMessage) (*refusedEndpoint, string) {
	if d.CheckAgentConfig == nil {
		return nil, ""
	}
	err := d.CheckAgentConfig(r.Context(), cfg)
	if err == nil {
		return nil, ""
	}
	var refused *outbound.Refusal
	if !errors.As(err, &refused) {
		return nil, "agent.llm.invalid"
	}
	target := refused.Addr.String()
	if refused.Host != "" {
		target = refused.Host + " (" + target + ")"
	}
	return &refusedEndpoint{Target: target, Class: "outbound." + refused.Class.Key()}, ""
}
