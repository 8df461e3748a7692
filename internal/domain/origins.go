package domain

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
)

// Allowed origins (opt-in per agent). The spec opens CORS to every
// origin, and that stays the default: an agent without "allowed_origins"
// answers any page. An owner who lists origins has the widget API refuse
// browsers on other sites. It is a check on the Origin header, which
// browsers set and pages cannot forge; a script sends what it likes, so
// this keeps the widget off other sites, not the API away from scripts.

// The config's keys.
const (
	ConfigAllowedOrigins = "allowed_origins"
	ConfigRequireOrigin  = "require_origin"
)

// Bounds of "allowed_origins".
const (
	MaxAllowedOrigins = 50
	MaxOriginChars    = 300
)

// ErrOriginRefused: the page's origin is not one the agent allows (or the
// request has none and the agent requires one). A 403.
var ErrOriginRefused = errors.New("this site is not allowed to use this widget")

// CheckOrigin applies the agent's origin rule to a widget request's Origin
// header ("" when the request has none). It is the only place the rule is
// decided; it allocates nothing, for it runs on every widget request.
func (c AgentConfig) CheckOrigin(origin string) error {
	if origin == "" {
		if c.RequireOrigin != nil && *c.RequireOrigin {
			return ErrOriginRefused
		}
		return nil
	}
	if len(c.AllowedOrigins) == 0 {
		return nil
	}
	for _, p := range c.AllowedOrigins {
		if originMatches(p, origin) {
			return nil
		}
	}
	return ErrOriginRefused
}

// originMatches compares an allowed pattern with an Origin, ignoring case
// and a trailing slash. "scheme://*.host[:port]" matches any subdomain of
// host, at any depth, but not host itself. A pattern without a port
// matches only an origin without one (the scheme's default port: browsers
// leave it out of Origin).
func originMatches(pattern, origin string) bool {
	pattern = strings.TrimSuffix(pattern, "/")
	origin = strings.TrimSuffix(origin, "/")
	pScheme, pHost, ok1 := strings.Cut(pattern, "://")
	oScheme, oHost, ok2 := strings.Cut(origin, "://")
	if !ok1 || !ok2 || !strings.EqualFold(pScheme, oScheme) {
		return false
	}
	suffix, wild := strings.CutPrefix(pHost, "*.")
	if !wild {
		return strings.EqualFold(pHost, oHost)
	}
	// oHost must be "<labels>.<suffix>", the labels not empty and holding
	// no port or path separator.
	n := len(oHost) - len(suffix) - 1
	if n < 1 || oHost[n] != '.' || !strings.EqualFold(oHost[n+1:], suffix) {
		return false
	}
	return !strings.ContainsAny(oHost[:n], ":/@")
}

// validateOrigins checks "allowed_origins" when it is saved: each an http
// or https origin, scheme and host (a "*." wildcard first allowed) and an
// optional port, no path, query or user.
func validateOrigins(list []string) error {
	if len(list) > MaxAllowedOrigins {
		return configErr(ConfigAllowedOrigins, "must hold at most %d origins", MaxAllowedOrigins)
	}
	for _, o := range list {
		if !validOrigin(o) {
			return configErr(ConfigAllowedOrigins, "must each be an origin such as https://shop.example, https://*.shop.example or http://localhost:8080 (scheme and host, no path): %q is not", o)
		}
	}
	return nil
}

func validOrigin(o string) bool {
	if o == "" || len(o) > MaxOriginChars {
		return false
	}
	scheme, host, ok := strings.Cut(strings.TrimSuffix(o, "/"), "://")
	if !ok || (!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")) {
		return false
	}
	if rest, wild := strings.CutPrefix(host, "*."); wild {
		host = "x." + rest // a label in the wildcard's place, to parse it
	}
	if host == "" || strings.ContainsAny(host, "/?#@*\\ ") {
		return false
	}
	u, err := url.Parse(scheme + "://" + host)
	return err == nil && u.Hostname() != "" && u.Path == "" && u.Opaque == ""
}

// The fields of the two members, for knownFields.
var (
	allowedOriginsField = configField{ConfigAllowedOrigins, func(c *AgentConfig, raw json.RawMessage) error {
		if json.Unmarshal(raw, &c.AllowedOrigins) != nil {
			c.AllowedOrigins = nil
			return configErr(ConfigAllowedOrigins, `must be an array of origins such as ["https://shop.example"]`)
		}
		return nil
	}, func(c *AgentConfig) json.RawMessage {
		if c.AllowedOrigins == nil {
			return nil
		}
		return marshal(c.AllowedOrigins)
	}}
	requireOriginField = configField{ConfigRequireOrigin, func(c *AgentConfig, raw json.RawMessage) error {
		var on *bool
		if json.Unmarshal(raw, &on) != nil {
			c.RequireOrigin = nil
			return configErr(ConfigRequireOrigin, "must be true or false")
		}
		c.RequireOrigin = on
		return nil
	}, func(c *AgentConfig) json.RawMessage {
		if c.RequireOrigin == nil {
			return nil
		}
		return marshal(*c.RequireOrigin)
	}}
)
