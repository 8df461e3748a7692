package manageapi

import (
	"encoding/json"
	"maps"

	"parley/internal/domain"
)

// The API keys an owner puts in an agent's config ("llm": {"api_key": …},
// "embed": {"api_key": …}) are secrets: the API never returns them, only
// "api_key_set": true (domain.AgentConfig.Owner).

// keepAPIKey carries a stored key over into a new config that has an
// "llm" (or "embed") object without one, so an owner who edits the model
// does not have to send the key again; "api_key": "" removes it. It
// returns the config to store.
func keepAPIKey(next *domain.AgentConfig, prev domain.AgentConfig) json.RawMessage {
	if isObject(next.Member(domain.ConfigLLM)) {
		next.LLM.Extra = withoutKeySet(next.LLM.Extra)
		next.LLM.APIKey = keptKey(next.LLM.APIKey, prev.LLM.APIKey)
	}
	if isObject(next.Member(domain.ConfigEmbed)) {
		next.Embed.Extra = withoutKeySet(next.Embed.Extra)
		next.Embed.APIKey = keptKey(next.Embed.APIKey, prev.Embed.APIKey)
	}
	return next.JSON()
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// withoutKeySet drops "api_key_set", a read-only marker never stored.
func withoutKeySet(extra map[string]json.RawMessage) map[string]json.RawMessage {
	if _, ok := extra["api_key_set"]; !ok {
		return extra
	}
	extra = maps.Clone(extra) // the decoded config's map may be shared
	delete(extra, "api_key_set")
	return extra
}

func keptKey(next, prev *string) *string {
	switch {
	case next == nil:
		return prev
	case *next == "":
		return nil
	}
	return next
}
