package manageapi

import (
	"encoding/json"

	"parley/internal/domain"
)

// The LLM API key an owner puts in an agent's config ("llm": {"api_key":
// …}) is a secret: the API never returns it, only "api_key_set": true
// (domain.AgentConfig.Owner).

// keepAPIKey carries the stored key over into a new config that has an
// "llm" object without one, so an owner who edits the model does not have
// to send the key again; "api_key": "" removes it. It returns the config
// to store.
func keepAPIKey(next *domain.AgentConfig, prev domain.AgentConfig) json.RawMessage {
	if llm := next.Member(domain.ConfigLLM); len(llm) == 0 || llm[0] != '{' {
		return next.JSON()
	}
	if _, ok := next.LLM.Extra["api_key_set"]; ok {
		extra := make(map[string]json.RawMessage, len(next.LLM.Extra))
		for k, v := range next.LLM.Extra {
			if k != "api_key_set" { // a read-only marker, never stored
				extra[k] = v
			}
		}
		next.LLM.Extra = extra
	}
	switch {
	case next.LLM.APIKey == nil:
		next.LLM.APIKey = prev.LLM.APIKey
	case *next.LLM.APIKey == "":
		next.LLM.APIKey = nil
	}
	return next.JSON()
}
