package manageapi

import "encoding/json"

// The LLM API key an owner puts in an agent's config ("llm": {"api_key":
// …}) is a secret: the API never returns it, only "api_key_set": true.

// redactConfig returns the config as the management API shows it.
func redactConfig(raw json.RawMessage) json.RawMessage {
	cfg, llm, ok := splitLLM(raw)
	if !ok {
		return raw
	}
	if _, has := llm["api_key"]; !has {
		return raw
	}
	delete(llm, "api_key")
	llm["api_key_set"] = json.RawMessage("true")
	return joinLLM(cfg, llm)
}

// keepAPIKey carries the stored key over into a new config that has an
// "llm" section without one, so an owner who edits the model does not have
// to send the key again. "api_key": "" removes it.
func keepAPIKey(next, prev json.RawMessage) json.RawMessage {
	cfg, llm, ok := splitLLM(next)
	if !ok {
		return next
	}
	delete(llm, "api_key_set") // a read-only marker, never stored
	if _, has := llm["api_key"]; !has {
		if _, old, ok := splitLLM(prev); ok {
			if key, has := old["api_key"]; has {
				llm["api_key"] = key
			}
		}
	} else if string(llm["api_key"]) == `""` {
		delete(llm, "api_key")
	}
	return joinLLM(cfg, llm)
}

func splitLLM(raw json.RawMessage) (cfg, llm map[string]json.RawMessage, ok bool) {
	if json.Unmarshal(raw, &cfg) != nil || cfg == nil {
		return nil, nil, false
	}
	if json.Unmarshal(cfg["llm"], &llm) != nil || llm == nil {
		return nil, nil, false
	}
	return cfg, llm, true
}

func joinLLM(cfg, llm map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(llm) // re-encoding decoded JSON cannot fail
	cfg["llm"] = b
	out, _ := json.Marshal(cfg)
	return out
}
