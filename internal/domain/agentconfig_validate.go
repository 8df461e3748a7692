package domain

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"parley/web/i18n"
)

// Bounds of a config's values, the same for the management API and the
// dashboard. Texts are counted in characters (code points).
const (
	MaxGreeting     = 1000 // also each handoff message
	MaxLauncherText = 40   // the widget shows no more
	MaxQuickReplies = 6    // the widget shows no more
	MaxQuickReply   = 100  // a button, sent as the visitor's message
	MaxInstructions = 20000
	MaxLLMField     = 1000 // provider, base URL, model, API key (some keys are long tokens)
	// MaxConversationLimit is the largest limit on new conversations.
	MaxConversationLimit = 100_000
)

// hexColor is what the widget accepts as a colour (web/widget/loader.js);
// anything else would silently give its default.
var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// IsHexColor reports whether s is a colour the widget accepts.
func IsHexColor(s string) bool { return hexColor.MatchString(s) }

// Validate checks the values of a config about to be saved. The error is
// a *ConfigError naming the first member at fault (a 400). Stored configs
// are not validated when loaded (DecodeAgentConfig).
func (c AgentConfig) Validate() error {
	long := func(s string, n int) bool { return utf8.RuneCountInString(s) > n }
	switch {
	case long(c.Greeting, MaxGreeting):
		return configErr(ConfigGreeting, "must be at most %d characters", MaxGreeting)
	case c.Color != "" && !IsHexColor(c.Color):
		return configErr(ConfigColor, "must be a hex colour, #rgb or #rrggbb")
	case c.Position != "" && c.Position != "left" && c.Position != "right":
		return configErr(ConfigPosition, `must be "left" or "right"`)
	case c.Lang != "" && !i18n.Known(c.Lang):
		return configErr(ConfigLang, "must be one of %s", strings.Join(i18n.Languages, ", "))
	case long(c.LauncherText, MaxLauncherText):
		return configErr(ConfigLauncherText, "must be at most %d characters", MaxLauncherText)
	case len(c.QuickReplies) > MaxQuickReplies:
		return configErr(ConfigQuickReplies, "must hold at most %d replies", MaxQuickReplies)
	case long(c.Instructions, MaxInstructions):
		return configErr(ConfigInstructions, "must be at most %d characters", MaxInstructions)
	}
	for _, q := range c.QuickReplies {
		if strings.TrimSpace(q) == "" || long(q, MaxQuickReply) {
			return configErr(ConfigQuickReplies, "must each be 1 to %d characters", MaxQuickReply)
		}
	}
	if err := c.Handoff.validate(long); err != nil {
		return err
	}
	if err := c.LLM.validate(long); err != nil {
		return err
	}
	if err := c.Embed.validate(long); err != nil {
		return err
	}
	if err := validateOrigins(c.AllowedOrigins); err != nil {
		return err
	}
	return c.Limits.validate()
}

func (h HandoffConfig) validate(long func(string, int) bool) error {
	if long(h.Message, MaxGreeting) {
		return configErr("handoff.message", "must be at most %d characters", MaxGreeting)
	}
	for lang, m := range h.Messages {
		if lang != "" && !i18n.Known(lang) {
			return configErr("handoff.message", "has an unknown language %q (known: %s)", lang, strings.Join(i18n.Languages, ", "))
		}
		if long(m, MaxGreeting) {
			return configErr("handoff.message."+lang, "must be at most %d characters", MaxGreeting)
		}
	}
	return nil
}

func (l LLMConfig) validate(long func(string, int) bool) error {
	for _, k := range llmStrings {
		if long(*l.str(k), MaxLLMField) {
			return configErr("llm."+k, "must be at most %d characters", MaxLLMField)
		}
	}
	if long(l.Key(), MaxLLMField) {
		return configErr("llm.api_key", "must be at most %d characters", MaxLLMField)
	}
	if l.BaseURL != "" {
		// The wording of the scheme's error is the outbound guard's, which
		// checks the endpoint next (llm.Responder.CheckAgentConfig).
		u, err := url.Parse(l.BaseURL)
		switch {
		case err == nil && u.Scheme != "http" && u.Scheme != "https":
			return &ConfigError{Field: "llm.base_url", Text: fmt.Sprintf("config.llm.base_url: scheme %q is not allowed: use http or https", u.Scheme)}
		case err != nil || u.Host == "":
			return configErr("llm.base_url", "must be an http or https URL such as https://api.openai.com/v1")
		}
	}
	return nil
}

func (l LimitsConfig) validate() error {
	for k := range l.Extra {
		return &ConfigError{Field: ConfigLimits, Text: `config.limits: unknown key "` + k + `" (known: ` + LimitPerIP + ", " + LimitPerVisitor + ")"}
	}
	for k, p := range map[string]*int{LimitPerIP: l.PerIP, LimitPerVisitor: l.PerVisitor} {
		if p != nil && (*p < 0 || *p > MaxConversationLimit) {
			return configErr("limits."+k, "must be a whole number from 0 (off) to %d", MaxConversationLimit)
		}
	}
	return nil
}
