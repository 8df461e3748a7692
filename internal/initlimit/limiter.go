package initlimit

import (
	"context"
	"net/netip"

	"parley/internal/domain"
	"parley/internal/metrics"
	"parley/internal/ratelimit"
)

// Limiter applies the agents' limits, counting in a ratelimit.Counter
// (in memory, or in Redis so that every instance shares the counts).
type Limiter struct {
	counter  ratelimit.Counter
	defaults Settings
	refused  *metrics.CounterVec // by scope: "ip", "visitor"
}

// The errors of a refused init, by scope.
var (
	errPerIP      = &domain.SlowDownError{Msg: "too many new conversations from this address; try again later"}
	errPerVisitor = &domain.SlowDownError{Msg: "too many new conversations for this visitor; try again later"}
)

// New returns a limiter counting in c, whose windows must be Window long,
// with the instance's defaults for agents that set no limits. With a
// registry it counts refusals in parley_init_limited_total.
func New(c ratelimit.Counter, defaults Settings, reg *metrics.Registry) *Limiter {
	l := &Limiter{counter: c, defaults: defaults}
	if reg != nil {
		l.refused = reg.Counter("parley_init_limited_total",
			"New conversations refused by an agent's per-address or per-visitor hourly limit, by scope.", "scope")
	}
	return l
}

// Admit counts a new conversation of agent ag started from address ip by
// visitor, or refuses it with a *domain.SlowDownError (429, Retry-After)
// when the address or the visitor is at the agent's limit for this hour;
// a refused one counts nowhere. visitor is "" when init makes a new id:
// a visitor the client did not name has no history to limit. Call it
// before the conversation is created, so a refused init uses up nothing
// of the owner's allowance.
func (l *Limiter) Admit(ctx context.Context, ag domain.Agent, ip netip.Addr, visitor string) error {
	s := l.defaults.Of(ag.Config)
	if s.PerIP <= 0 && (s.PerVisitor <= 0 || visitor == "") {
		return nil
	}
	// The agent's id as a hash tag keeps both keys on one Redis Cluster
	// slot (ratelimit.RedisCounter).
	tag := "{" + ag.ID + "}:"
	asks := [2]ratelimit.Ask{{Key: tag + "ip:" + addressKey(ip), Limit: s.PerIP}}
	n := 1
	if visitor != "" {
		asks[1] = ratelimit.Ask{Key: tag + "v:" + visitor, Limit: s.PerVisitor}
		n = 2
	}
	t := l.counter.Take(ctx, asks[:n]...)
	if t.Allowed {
		return nil
	}
	err, scope := *errPerIP, "ip"
	if t.Refused == 1 {
		err, scope = *errPerVisitor, "visitor"
	}
	if l.refused != nil {
		l.refused.WithLabelValues(scope).Inc()
	}
	err.RetryAfter = t.RetryAfter
	return &err
}

// Defaults are the limits of agents that set none.
func (l *Limiter) Defaults() Settings { return l.defaults }

// addressKey names a client address as the per-IP rate limit counts it:
// an IPv4-mapped address as IPv4, and an IPv6 address by its /64, which
// one host usually owns whole. Without an address (a test request), all
// share one key.
func addressKey(ip netip.Addr) string {
	ip = ip.Unmap()
	if !ip.IsValid() {
		return "unknown"
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
