package initlimit

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/ratelimit"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for cfg, ok := range map[string]bool{
		`{}`:                true,
		`{"greeting":"hi"}`: true,
		`{"limits":{}}`:     true,
		`{"limits":{"conversations_per_ip_per_hour":0,"conversations_per_visitor_per_hour":100000}}`: true,
		`{"limits":{"conversations_per_ip_per_hour":100001}}`:                                        false,
		`{"limits":{"conversations_per_ip_per_hour":-1}}`:                                            false,
		`{"limits":{"conversations_per_ip_per_hour":2.5}}`:                                           false,
		`{"limits":{"conversations_per_ip_per_hour":"2"}}`:                                           false,
		`{"limits":{"conversations_per_ip_per_hour":null}}`:                                          false,
		`{"limits":{"per_ip":2}}`:                                                                    false,
		`{"limits":[]}`:                                                                              false,
		`{"limits":null}`:                                                                            false,
		`{"limits":3}`:                                                                               false,
	} {
		err := Check(json.RawMessage(cfg))
		var invalid *domain.InvalidError
		if ok != (err == nil) || (err != nil && !errors.As(err, &invalid)) {
			t.Errorf("Check(%s) = %v, want ok %v", cfg, err, ok)
		}
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	inst := Settings{PerIP: 50, PerVisitor: 5}
	for cfg, want := range map[string]Settings{
		`{}`: inst,
		`{"limits":{"conversations_per_ip_per_hour":0}}`:      {PerIP: 0, PerVisitor: 5},
		`{"limits":{"conversations_per_visitor_per_hour":2}}`: {PerIP: 50, PerVisitor: 2},
		`{"limits":{"conversations_per_ip_per_hour":"oops"}}`: inst, // malformed: the default
		`not json`: inst,
	} {
		if got := inst.Of(json.RawMessage(cfg)); got != want {
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
	a, b := domain.Agent{ID: "ag_a", Config: json.RawMessage(`{}`)}, domain.Agent{ID: "ag_b", Config: json.RawMessage(`{}`)}
	ctx := context.Background()
	if l.Admit(ctx, a, ip, "") != nil || l.Admit(ctx, b, ip, "") != nil {
		t.Fatal("the first of each agent was refused")
	}
	var slow *domain.SlowDownError
	if err := l.Admit(ctx, a, ip, ""); !errors.As(err, &slow) || slow.RetryAfter != Window {
		t.Fatalf("the second for agent a: %v", err)
	}
}
