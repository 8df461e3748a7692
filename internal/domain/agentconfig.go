package domain

import "encoding/json"

// AgentConfig is an agent's configuration: the JSON object its owner saves
// through the management API or the dashboard, decoded once when the agent
// is loaded (DecodeAgentConfig). The fields are what Parley reads; keys it
// does not read are kept in Extra and saved back as they came.
//
// A config from the store is shared (the SQLite key cache hands the same
// one to every request): read it, and to change one, assign new maps and
// slices rather than writing into the ones it holds.
//
// The JSON forms are produced by the type: JSON (what is stored), Public
// (what init shows visitors) and Owner (what the management API shows the
// owner). A config decoded from bytes keeps them: as long as a member is
// not changed, its bytes are written back exactly as they came, so an
// owner's key order, escapes and old values of the wrong type survive.
type AgentConfig struct {
	Greeting     string        // "greeting": the widget's first message
	Color        string        // "color": #rgb or #rrggbb; else the widget's default
	Position     string        // "position": "left", else bottom-right
	Lang         string        // "lang": "", or one of i18n.Languages
	LauncherText string        // "launcher_text": text beside the launcher
	QuickReplies []string      // "quick_replies": buttons under the greeting
	Handoff      HandoffConfig // "handoff"
	Instructions string        // "instructions": private, the LLM's system prompt
	LLM          LLMConfig     // "llm": private, the agent's own LLM backend
	Embed        EmbedConfig   // "embed": private, the agent's own embeddings backend
	Limits       LimitsConfig  // "limits": private, limits on new conversations
	// "allowed_origins" and "require_origin": private, which pages may use
	// the widget (origins.go). Empty: any; RequireOrigin nil is false.
	AllowedOrigins []string
	RequireOrigin  *bool
	// "require_identity": private, init refuses visitors without a
	// verified user (identity.go). Nil is false.
	RequireIdentity *bool

	// Extra holds the members Parley does not read, as raw JSON.
	Extra map[string]json.RawMessage

	// src is the object this config was decoded from (nil when built in
	// code) and raw its members: they tell which members are unchanged
	// (see members). Both are shared between copies and never written.
	src json.RawMessage
	raw map[string]json.RawMessage
}

// HandoffConfig is "handoff": {"enabled": bool, "message": "…" or {"en": "…", …}}.
type HandoffConfig struct {
	// Enabled is nil when not set: handoff is on unless it is false.
	Enabled *bool
	// Message is one text for every language ("message" as a string).
	Message string
	// Messages is "message" as an object: a text per language; the key ""
	// is for every language. Non-nil wins over Message.
	Messages map[string]string
	Extra    map[string]json.RawMessage
}

// On reports whether handoff is on.
func (h HandoffConfig) On() bool { return h.Enabled == nil || *h.Enabled }

// LLMConfig is "llm": the agent's own OpenAI-compatible backend.
type LLMConfig struct {
	Provider string
	BaseURL  string
	Model    string
	// APIKey is nil when no key is stored (or sent: on the management
	// API, a config without one keeps the stored key).
	APIKey *string
	Stream *bool // nil: the instance's default
	Extra  map[string]json.RawMessage
}

// Key returns the API key, "" when none.
func (l LLMConfig) Key() string {
	if l.APIKey == nil {
		return ""
	}
	return *l.APIKey
}

// LimitsConfig is "limits": the agent's limits on new conversations per
// hour (package initlimit). Nil is the instance's default; 0 is off.
type LimitsConfig struct {
	PerIP      *int // "conversations_per_ip_per_hour"
	PerVisitor *int // "conversations_per_visitor_per_hour"
	Extra      map[string]json.RawMessage
}

// The config's keys.
const (
	ConfigGreeting     = "greeting"
	ConfigColor        = "color"
	ConfigPosition     = "position"
	ConfigLang         = "lang"
	ConfigLauncherText = "launcher_text"
	ConfigQuickReplies = "quick_replies"
	ConfigHandoff      = "handoff"
	ConfigInstructions = "instructions"
	ConfigLLM          = "llm"
	ConfigLimits       = "limits"

	LimitPerIP      = "conversations_per_ip_per_hour"
	LimitPerVisitor = "conversations_per_visitor_per_hour"
)

// privateConfigKeys are never shown to visitors: the AI's instructions,
// the LLM connection (which may hold an API key) and the limits on new
// conversations (no help to a visitor, and a guide to whoever wants to
// stay just under them), and the allowed origins (the owner's list of
// sites, of no use to a visitor).
var privateConfigKeys = []string{ConfigInstructions, ConfigLLM, ConfigLimits, ConfigEmbed, ConfigAllowedOrigins, ConfigRequireOrigin, ConfigRequireIdentity}
