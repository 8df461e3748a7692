package domain

import (
	"encoding/json"
	"fmt"
	"net/url"
)

// EmbedConfig is "embed": the agent's own embeddings backend for hybrid
// retrieval, {"base_url", "model", "api_key"}. Unset members take the
// instance's PARLEY_EMBED_* settings; see docs/agent.md, "Hybrid
// retrieval". It is private, as "llm" is, and its key is shown to the
// owner only as "api_key_set": true.
type EmbedConfig struct {
	BaseURL string
	Model   string
	// APIKey is nil when no key is stored (or sent: on the management
	// API, a config without one keeps the stored key).
	APIKey *string
	Extra  map[string]json.RawMessage
}

// ConfigEmbed is the key of the agent's embeddings backend.
const ConfigEmbed = "embed"

// Key returns the API key, "" when none.
func (e EmbedConfig) Key() string {
	if e.APIKey == nil {
		return ""
	}
	return *e.APIKey
}

var embedField = configField{ConfigEmbed, func(c *AgentConfig, raw json.RawMessage) (err error) {
	c.Embed, err = decodeEmbed(raw)
	return err
}, func(c *AgentConfig) json.RawMessage { return c.Embed.encode(false) }}

func decodeEmbed(raw json.RawMessage) (EmbedConfig, error) {
	m, err := object(ConfigEmbed, raw)
	var e EmbedConfig
	for k, v := range m {
		switch k {
		case "base_url":
			firstErr(&err, decodeString("embed.base_url", v, &e.BaseURL))
		case "model":
			firstErr(&err, decodeString("embed.model", v, &e.Model))
		case "api_key":
			var key string // of the wrong type: hidden, but no key to send
			firstErr(&err, decodeString("embed.api_key", v, &key))
			e.APIKey = &key
		default:
			e.Extra = setExtra(e.Extra, k, v)
		}
	}
	return e, err
}

// encode writes the settings; keySet replaces the API key by the
// management API's read-only "api_key_set": true.
func (e EmbedConfig) encode(keySet bool) json.RawMessage {
	m := copyExtra(e.Extra, "base_url", "model", "api_key")
	if e.BaseURL != "" {
		m["base_url"] = marshal(e.BaseURL)
	}
	if e.Model != "" {
		m["model"] = marshal(e.Model)
	}
	switch {
	case e.APIKey != nil && keySet:
		m["api_key_set"] = json.RawMessage("true")
	case e.APIKey != nil:
		m["api_key"] = marshal(*e.APIKey)
	}
	return encodeObject(m)
}

func (e EmbedConfig) validate(long func(string, int) bool) error {
	for k, v := range map[string]string{"base_url": e.BaseURL, "model": e.Model, "api_key": e.Key()} {
		if long(v, MaxLLMField) {
			return configErr("embed."+k, "must be at most %d characters", MaxLLMField)
		}
	}
	if e.BaseURL == "" {
		return nil
	}
	// As llm.base_url: the scheme here, the address by the outbound guard
	// when the config is saved (llm.Responder.CheckAgentConfig).
	u, err := url.Parse(e.BaseURL)
	switch {
	case err == nil && u.Scheme != "http" && u.Scheme != "https":
		return &ConfigError{Field: "embed.base_url", Text: fmt.Sprintf("config.embed.base_url: scheme %q is not allowed: use http or https", u.Scheme)}
	case err != nil || u.Host == "":
		return configErr("embed.base_url", "must be an http or https URL such as https://api.openai.com/v1")
	}
	return nil
}
