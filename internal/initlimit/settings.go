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
// shown to visitors (domain.AgentConfig.Public).
package initlimit

import (
	"time"

	"parley/internal/domain"
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
	// MaxLimit is the largest value a limit may have (checked when a
	// config is saved: domain.AgentConfig.Validate).
	MaxLimit = domain.MaxConversationLimit
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

// Of is the limits of an agent with this config on an instance with these
// defaults: a limit the config does not set (or, in a config saved under
// older rules, sets to something that is not a whole number from 0) has
// the instance's default.
func (defaults Settings) Of(c domain.AgentConfig) Settings {
	s := defaults
	if p := c.Limits.PerIP; p != nil && *p >= 0 {
		s.PerIP = *p
	}
	if p := c.Limits.PerVisitor; p != nil && *p >= 0 {
		s.PerVisitor = *p
	}
	return s
}
