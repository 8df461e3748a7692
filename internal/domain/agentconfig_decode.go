package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ConfigError is a config member of the wrong type or out of bounds. It is
// a 400 (an *InvalidError) whose message names the member.
type ConfigError struct {
	Field string // the member's path below config, e.g. "llm.base_url"
	Text  string // the whole message, "config.llm.base_url must be …"
}

func (e *ConfigError) Error() string { return e.Text }

// Unwrap makes the error an *InvalidError for errors.As: the APIs answer 400.
func (e *ConfigError) Unwrap() error { return &InvalidError{Msg: e.Text} }

func configErr(field, format string, args ...any) *ConfigError {
	return &ConfigError{Field: field, Text: "config." + field + " " + fmt.Sprintf(format, args...)}
}

// DecodeAgentConfig decodes a stored config leniently: a member of the
// wrong type reads as unset (its default), and the rest still applies. An
// agent must never stop chatting because a config saved under older,
// looser rules fails today's; it is checked when it is saved (Validate).
// Bytes that are not a JSON object give the empty config.
func DecodeAgentConfig(raw []byte) AgentConfig {
	c, _ := decodeConfig(raw)
	return c
}

// ParseAgentConfig decodes a config about to be saved: it must be a JSON
// object, and the members Parley reads must have their types. The error is
// an *InvalidError or a *ConfigError (both 400s). Validate checks the
// values.
func ParseAgentConfig(raw []byte) (AgentConfig, error) {
	return decodeConfig(raw)
}

// decodeConfig reads every member it can and returns the first error.
func decodeConfig(raw []byte) (AgentConfig, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return AgentConfig{}, Invalid("config must be a JSON object")
	}
	c := AgentConfig{src: bytes.Clone(raw), raw: m}
	var first error
	for _, f := range knownFields {
		v, ok := m[f.key]
		if !ok {
			continue
		}
		if err := f.decode(&c, v); err != nil && first == nil {
			first = err
		}
	}
	for k, v := range m {
		if !isKnownField(k) {
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
	}
	return c, first
}

// configField is a member Parley reads: how to decode it into the config
// (leaving it unset, with an error, when the JSON has the wrong type) and
// how to encode it back (nil when the member is unset).
type configField struct {
	key    string
	decode func(c *AgentConfig, raw json.RawMessage) error
	encode func(c *AgentConfig) json.RawMessage
}

var knownFields = []configField{
	stringField(ConfigGreeting, func(c *AgentConfig) *string { return &c.Greeting }),
	stringField(ConfigColor, func(c *AgentConfig) *string { return &c.Color }),
	stringField(ConfigPosition, func(c *AgentConfig) *string { return &c.Position }),
	stringField(ConfigLang, func(c *AgentConfig) *string { return &c.Lang }),
	stringField(ConfigLauncherText, func(c *AgentConfig) *string { return &c.LauncherText }),
	{ConfigQuickReplies, func(c *AgentConfig, raw json.RawMessage) error {
		if json.Unmarshal(raw, &c.QuickReplies) != nil {
			c.QuickReplies = nil
			return configErr(ConfigQuickReplies, "must be an array of strings")
		}
		return nil
	}, func(c *AgentConfig) json.RawMessage {
		if c.QuickReplies == nil {
			return nil
		}
		return marshal(c.QuickReplies)
	}},
	{ConfigHandoff, func(c *AgentConfig, raw json.RawMessage) (err error) {
		c.Handoff, err = decodeHandoff(raw)
		return err
	}, func(c *AgentConfig) json.RawMessage { return c.Handoff.encode() }},
	stringField(ConfigInstructions, func(c *AgentConfig) *string { return &c.Instructions }),
	{ConfigLLM, func(c *AgentConfig, raw json.RawMessage) (err error) {
		c.LLM, err = decodeLLM(raw)
		return err
	}, func(c *AgentConfig) json.RawMessage { return c.LLM.encode(false) }},
	{ConfigLimits, func(c *AgentConfig, raw json.RawMessage) (err error) {
		c.Limits, err = decodeLimits(raw)
		return err
	}, func(c *AgentConfig) json.RawMessage { return c.Limits.encode() }},
	embedField,
	allowedOriginsField,
	requireOriginField,
	requireIdentityField,
}

func isKnownField(k string) bool {
	for _, f := range knownFields {
		if f.key == k {
			return true
		}
	}
	return false
}

// stringField is a string member; "" is unset.
func stringField(key string, p func(*AgentConfig) *string) configField {
	return configField{key, func(c *AgentConfig, raw json.RawMessage) error {
		return decodeString(key, raw, p(c))
	}, func(c *AgentConfig) json.RawMessage {
		if *p(c) == "" {
			return nil
		}
		return marshal(*p(c))
	}}
}

func decodeString(field string, raw json.RawMessage, into *string) error {
	if json.Unmarshal(raw, into) != nil {
		*into = ""
		return configErr(field, "must be a string")
	}
	return nil
}

// object reads raw as a JSON object; null is an empty one.
func object(field string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, configErr(field, "must be an object")
	}
	return m, nil
}

// marshal encodes a value decoded from JSON, which cannot fail.
func marshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// firstErr keeps the first of a sequence of errors.
func firstErr(first *error, err error) {
	if *first == nil && err != nil {
		*first = err
	}
}
