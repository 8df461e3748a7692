// Package initlimit bounds how many conversations one address and one
// visitor may start with an agent in an hour. The widget key is public and
// CORS is open (spec), so anyone can call init with it; every conversation
// counts against the owner's monthly allowance and spend cap. These limits
// are the owner's protection that keeps the key public: a refused init is
// a 429 without limit_reached (waiting clears it), checked before the
// conversation is created, so it uses up no allowance.
//
// The limits are the agent's, in its config:
//
//	"limits": {"conversations_per_ip_per_hour": 30, "conversations_per_visitor_per_hour": 10}
//
// 0 turns one off; a missing key has its default. The limits are never
// shown to visitors (agent.PublicConfig).
package initlimit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/parsecache"
)

// ConfigKey is the agent config member that holds the limits.
const ConfigKey = "limits"

// The config keys inside it.
const (
	KeyPerIP      = "conversations_per_ip_per_hour"
	KeyPerVisitor = "conversations_per_visitor_per_hour"
)

// The defaults (docs/agent.md has the reasoning), for agents whose config
// sets no limits; an instance may choose others (PARLEY_CONVERSATIONS_PER_
// IP_PER_HOUR and …_PER_VISITOR_PER_HOUR). The widget keeps its
// conversation across page loads and reloads, so one visitor rarely
// starts more than one or two an hour; 30 an hour from one address is a
// new conversation every two minutes for an hour, more than an office of a
// few hundred people behind one NAT starts on a vendor's site. A widget
// that serves one company's own staff behind one address (an internal
// helpdesk) should raise the address limit or turn it off.
const (
	DefaultPerIP      = 30
	DefaultPerVisitor = 10
	// MaxLimit is the largest value a limit may have.
	MaxLimit = 100_000
	// Window is the length of the counting windows: aligned hours.
	Window = time.Hour
)

// Settings are limits per hour; 0 is off.
type Settings struct {
	PerIP      int
	PerVisitor int
}

// Defaults are Parley's defaults.
var Defaults = Settings{PerIP: DefaultPerIP, PerVisitor: DefaultPerVisitor}

// unset marks a limit an agent's config does not set.
const unset = -1

// parse reads the limits an agent's config sets (unset for the others; a
// config saved through the APIs has been checked by Check, anything
// malformed counts as unset). The result comes from a cache (package
// parsecache): init reads it for every new conversation.
func parse(config json.RawMessage) Settings { return parsed.Get(config) }

var parsed = parsecache.New(1024, func(raw []byte) Settings {
	s := Settings{PerIP: unset, PerVisitor: unset}
	var c struct {
		Limits struct {
			PerIP      *int `json:"conversations_per_ip_per_hour"`
			PerVisitor *int `json:"conversations_per_visitor_per_hour"`
		} `json:"limits"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return s
	}
	if p := c.Limits.PerIP; p != nil && *p >= 0 {
		s.PerIP = *p
	}
	if p := c.Limits.PerVisitor; p != nil && *p >= 0 {
		s.PerVisitor = *p
	}
	return s
})

// Of is the limits of an agent with this config on an instance with these
// defaults.
func (defaults Settings) Of(config json.RawMessage) Settings {
	s := parse(config)
	if s.PerIP == unset {
		s.PerIP = defaults.PerIP
	}
	if s.PerVisitor == unset {
		s.PerVisitor = defaults.PerVisitor
	}
	return s
}

// Check validates the limits in an agent config about to be saved: when
// "limits" is present it must be an object of the two keys above, each a
// whole number from 0 to MaxLimit. The error is an *domain.InvalidError
// (400) naming the problem.
func Check(config json.RawMessage) error {
	var c map[string]json.RawMessage
	if json.Unmarshal(config, &c) != nil {
		return nil // not an object: the config's own check reports it
	}
	raw, ok := c[ConfigKey]
	if !ok {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return domain.Invalid(`config.limits must be an object such as {"` + KeyPerIP + `": 30, "` + KeyPerVisitor + `": 10}`)
	}
	for k, v := range m {
		if k != KeyPerIP && k != KeyPerVisitor {
			return domain.Invalid(fmt.Sprintf("config.limits: unknown key %q (known: %s, %s)", k, KeyPerIP, KeyPerVisitor))
		}
		if _, err := Value(v); err != nil {
			return domain.Invalid(fmt.Sprintf("config.limits.%s %v", k, err))
		}
	}
	return nil
}

// Value reads one limit: a whole number from 0 to MaxLimit.
func Value(raw json.RawMessage) (int, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || n < 0 || n > MaxLimit {
		return 0, fmt.Errorf("must be a whole number from 0 (off) to %d", MaxLimit)
	}
	return n, nil
}
