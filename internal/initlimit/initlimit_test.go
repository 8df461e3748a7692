package initlimit

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/ratelimit"
)

func TestOf(t *testing.T) {
	t.Parallel()
	inst := Settings{PerIP: 50, PerVisitor: 5}
	for cfg, want := range map[string]Settings{
		`{}`: inst,
		`{"limits":{"conversations_per_ip_per_hour":0}}`:                                         {PerIP: 0, PerVisitor: 5},
		`{"limits":{"conversations_per_visitor_per_hour":2}}`:                                    {PerIP: 50, PerVisitor: 2},
		`{"limits":{"conversations_per_ip_per_hour":"oops"}}`:                                    inst, // malformed: the default
		`{"limits":{"conversations_per_ip_per_hour":-3,"conversations_per_visitor_per_hour":7}}`: {PerIP: 50, PerVisitor: 7},
		`{"limits":{"conversations_per_ip_per_hour":200000}}`:                                    {PerIP: 200000, PerVisitor: 5}, // saved before the bound: kept
		`not json`: inst,
	} {
		if got := inst.Of(domain.DecodeAgentConfig([]byte(cfg))); got != want {
			t.Errorf("Of(%s) = %+v, want %+v", cfg, got, want)
		}
	}
}

func TestAddressKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"203.0.113.7":         "203.0.113.7",
		"::ffff:203.0.113.7":  "203.0.113.7",
		"2001:db8:1:2::9":     "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::": "2001:db8:1:2::/64",
	} {
		if got := addressKey(netip.MustParseAddr(in)); got != want {
			t.Errorf("addressKey(%s) = %s, want %s", in, got, want)
		}
	}
	if addressKey(netip.Addr{}) != "unknown" {
		t.Error("the zero address")
	}
}

// Agents are counted apart: one agent's limit does not touch another's.
func TestAdmitPerAgent(t *testing.T) {
	t.Parallel()
	l := New(ratelimit.NewMemoryCounter(Window, 0, func() time.Time { return time.Unix(0, 0) }), Settings{PerIP: 1, PerVisitor: 1}, nil)
	ip := netip.MustParseAddr("203.0.113.1")
	a, b := domain.Agent{ID: "ag_a"}, domain.Agent{ID: "ag_b"}
	ctx := context.Background()
	if l.Admit(ctx, a, ip, "") != nil || l.Admit(ctx, b, ip, "") != nil {
		t.Fatal("the first of each agent was refused")
	}
	var slow *domain.SlowDownError
	if err := l.Admit(ctx, a, ip, ""); !errors.As(err, &slow) || slow.RetryAfter != Window {
		t.Fatalf("the second for agent a: %v", err)
	}
}
