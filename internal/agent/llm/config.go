package llm

import (
	"strings"

	"parley/internal/domain"
)

// Config says which OpenAI-compatible backend to call and how.
type Config struct {
	// Provider names the kind of backend: "openai", "azure", "ollama",
	// "vllm", "llamacpp", "openrouter" or anything else. It is informational
	// except that "openai", "openrouter" and "ollama" supply their
	// well-known base URL when none is configured anywhere.
	Provider string
	// BaseURL is the API root "chat/completions" is appended to, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1".
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends none
	// (Ollama, llama.cpp and vLLM need none by default).
	APIKey string
	// Model is the model name; on Azure, the deployment name.
	Model string
	// Stream makes the call with stream=true and assembles the deltas.
	Stream bool
	// HistoryBudget is how many characters of earlier turns to send; 0
	// means DefaultHistoryBudget. Instance-wide only.
	HistoryBudget int
	// MaxRetries is how often a connection error, 408, 409, 429 or 5xx is
	// retried; 0 means DefaultMaxRetries and a negative value none.
	// Instance-wide only.
	MaxRetries int

	// NoAgentEndpoints, set on the instance default, ignores the base URL,
	// key and provider in agents' configs: on an instance shared by
	// untrusted owners, an agent's base URL would make the server send
	// requests to any server its owner likes (the outbound guard keeps
	// private addresses out either way). Agents may still choose the
	// model. Instance-wide only.
	NoAgentEndpoints bool

	// streamSet records that an agent override set Stream, so that its
	// "stream": false can switch off an instance default of true.
	streamSet bool
	// tenantEndpoint, set by merge, says the base URL was chosen by the
	// agent's owner (their base URL, or their provider's well-known one),
	// not by the administrator: calls to it go through the outbound guard.
	tenantEndpoint bool
}

// providerBaseURLs are the endpoints a provider name implies when no base
// URL is configured. Only providers with one public or conventional
// endpoint are listed; Azure, vLLM and llama.cpp live wherever they were
// deployed.
var providerBaseURLs = map[string]string{
	"openai":     "https://api.openai.com/v1",
	"openrouter": "https://openrouter.ai/api/v1",
	"ollama":     "http://localhost:11434/v1",
}

// agentOverride reads an agent's "llm" override and "instructions" from
// its config, trimmed. The config was decoded leniently when the agent was
// loaded: a member of the wrong type is unset there, so a broken agent
// config falls back to the instance default rather than breaking the chat.
func agentOverride(c domain.AgentConfig) (override Config, instructions string) {
	l := c.LLM
	override = Config{
		Provider: strings.ToLower(strings.TrimSpace(l.Provider)),
		BaseURL:  strings.TrimSpace(l.BaseURL),
		Model:    strings.TrimSpace(l.Model),
		APIKey:   strings.TrimSpace(l.Key()),
	}
	if l.Stream != nil {
		override.Stream, override.streamSet = *l.Stream, true
	}
	return override, strings.TrimSpace(c.Instructions)
}

// merge lays an agent's override over the instance default and fills in
// the defaults.
//
// The instance API key is only sent to the instance's own endpoint: an
// agent owner who points their agent at another base URL must bring their
// own key, or they could collect the instance's key on a server they run.
// The same line divides trust: the instance's endpoint is the
// administrator's choice and is called as configured; any other is the
// owner's, even a provider's well-known URL they selected ("ollama" is
// http://localhost:11434/v1), and is called through the outbound guard.
func merge(def, over Config) Config {
	if def.NoAgentEndpoints {
		over.BaseURL, over.APIKey, over.Provider = "", "", ""
	}
	defBase := def.BaseURL
	if defBase == "" {
		defBase = providerBaseURLs[strings.ToLower(def.Provider)]
	}
	out := def
	out.streamSet, out.tenantEndpoint = false, false
	if over.Provider != "" {
		out.Provider = over.Provider
	}
	out.BaseURL = firstNonEmpty(over.BaseURL, defBase, providerBaseURLs[over.Provider])
	if over.Model != "" {
		out.Model = over.Model
	}
	own := sameEndpoint(out.BaseURL, defBase)
	out.tenantEndpoint = out.BaseURL != "" && !own
	switch {
	case over.APIKey != "":
		out.APIKey = over.APIKey
	case own:
		out.APIKey = def.APIKey
	default:
		out.APIKey = ""
	}
	if over.streamSet {
		out.Stream = over.Stream
	}
	if out.HistoryBudget <= 0 {
		out.HistoryBudget = DefaultHistoryBudget
	}
	switch {
	case out.MaxRetries == 0:
		out.MaxRetries = DefaultMaxRetries
	case out.MaxRetries < 0:
		out.MaxRetries = 0 // none
	}
	return out
}

// sameEndpoint compares base URLs loosely: a trailing slash or letter case
// does not make another server, so the key is not withheld by accident.
func sameEndpoint(a, b string) bool {
	norm := func(s string) string { return strings.TrimRight(strings.TrimSpace(s), "/") }
	return a != "" && strings.EqualFold(norm(a), norm(b))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
