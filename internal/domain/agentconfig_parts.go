package domain

import (
	"encoding/json"
	"maps"
)

// The parts of a config that are objects. Each member is read on its own,
// so one of the wrong type leaves only itself unset; members Parley does
// not read are kept in Extra. Encoded, an object's keys are in
// alphabetical order (as encoding/json writes a map).

func decodeHandoff(raw json.RawMessage) (HandoffConfig, error) {
	m, err := object(ConfigHandoff, raw)
	var h HandoffConfig
	for k, v := range m {
		switch k {
		case "enabled":
			var on *bool
			if json.Unmarshal(v, &on) != nil {
				firstErr(&err, configErr("handoff.enabled", "must be true or false"))
				continue
			}
			h.Enabled = on
		case "message":
			var one string
			if json.Unmarshal(v, &one) == nil {
				h.Message = one
				continue
			}
			var perLang map[string]string
			if json.Unmarshal(v, &perLang) != nil {
				firstErr(&err, configErr("handoff.message", `must be a string or an object of strings such as {"en": "…", "ro": "…"}`))
				continue
			}
			h.Messages = perLang
		default:
			h.Extra = setExtra(h.Extra, k, v)
		}
	}
	return h, err
}

func (h HandoffConfig) encode() json.RawMessage {
	m := copyExtra(h.Extra, "enabled", "message")
	if h.Enabled != nil {
		m["enabled"] = marshal(*h.Enabled)
	}
	switch {
	case h.Messages != nil:
		m["message"] = marshal(h.Messages)
	case h.Message != "":
		m["message"] = marshal(h.Message)
	}
	return encodeObject(m)
}

// The members of "llm".
var llmStrings = []string{"provider", "base_url", "model"}

func (l *LLMConfig) str(k string) *string {
	switch k {
	case "provider":
		return &l.Provider
	case "base_url":
		return &l.BaseURL
	}
	return &l.Model
}

func decodeLLM(raw json.RawMessage) (LLMConfig, error) {
	m, err := object(ConfigLLM, raw)
	var l LLMConfig
	for k, v := range m {
		switch k {
		case "provider", "base_url", "model":
			firstErr(&err, decodeString("llm."+k, v, l.str(k)))
		case "api_key":
			// A key of the wrong type still counts as one, so it is
			// never shown (Owner), but it is no key to send.
			var key string
			firstErr(&err, decodeString("llm.api_key", v, &key))
			l.APIKey = &key
		case "stream":
			var on *bool
			if json.Unmarshal(v, &on) != nil {
				firstErr(&err, configErr("llm.stream", "must be true or false"))
				continue
			}
			l.Stream = on
		default:
			l.Extra = setExtra(l.Extra, k, v)
		}
	}
	return l, err
}

// encode writes the LLM settings; keySet replaces the API key by the
// management API's read-only "api_key_set": true.
func (l LLMConfig) encode(keySet bool) json.RawMessage {
	m := copyExtra(l.Extra, "provider", "base_url", "model", "api_key", "stream")
	for _, k := range llmStrings {
		if s := *l.str(k); s != "" {
			m[k] = marshal(s)
		}
	}
	switch {
	case l.APIKey != nil && keySet:
		m["api_key_set"] = json.RawMessage("true")
	case l.APIKey != nil:
		m["api_key"] = marshal(*l.APIKey)
	}
	if l.Stream != nil {
		m["stream"] = marshal(*l.Stream)
	}
	return encodeObject(m)
}

func decodeLimits(raw json.RawMessage) (LimitsConfig, error) {
	m, err := object(ConfigLimits, raw)
	if m == nil {
		// null too: an owner who writes "limits" means to set some.
		err = configErr(ConfigLimits, `must be an object such as {"%s": 30, "%s": 10}`, LimitPerIP, LimitPerVisitor)
	}
	var l LimitsConfig
	for k, v := range m {
		var p **int
		switch k {
		case LimitPerIP:
			p = &l.PerIP
		case LimitPerVisitor:
			p = &l.PerVisitor
		default:
			l.Extra = setExtra(l.Extra, k, v)
			continue
		}
		var n *int
		if json.Unmarshal(v, &n) != nil || n == nil || *n < 0 {
			// Unset, as before: the instance's default applies.
			firstErr(&err, configErr("limits."+k, "must be a whole number from 0 (off) to %d", MaxConversationLimit))
			continue
		}
		*p = n
	}
	return l, err
}

func (l LimitsConfig) encode() json.RawMessage {
	m := copyExtra(l.Extra, LimitPerIP, LimitPerVisitor)
	if l.PerIP != nil {
		m[LimitPerIP] = marshal(*l.PerIP)
	}
	if l.PerVisitor != nil {
		m[LimitPerVisitor] = marshal(*l.PerVisitor)
	}
	return encodeObject(m)
}

func setExtra(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[k] = v
	return m
}

// copyExtra copies extra without the keys the part reads itself.
func copyExtra(extra map[string]json.RawMessage, known ...string) map[string]json.RawMessage {
	m := maps.Clone(extra)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	for _, k := range known {
		delete(m, k)
	}
	return m
}

// encodeObject encodes the members of an object, nil when there are none
// (the part is unset). Invalid JSON in an Extra gives nil as well.
func encodeObject(m map[string]json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}
