package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/initlimit"
)

// settable is a clock the test moves.
type settable struct{ ns atomic.Int64 }

func (c *settable) now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *settable) add(d time.Duration) { c.ns.Add(int64(d)) }
func newSettable(t time.Time) *settable { c := &settable{}; c.ns.Store(t.UnixNano()); return c }
func from(ip string) map[string]string {
	return map[string]string{"X-Forwarded-For": ip, "remote": "127.0.0.1:1"}
}

// conversations is the allowance used in the clock's month (March 2025).
func (e *env) conversations() int {
	u, err := e.store.Usage(context.Background(), e.account.ID, "2025-03")
	if err != nil {
		e.t.Fatal(err)
	}
	return u.Conversations
}
func initBody(key string, extra ...string) map[string]any {
	b := map[string]any{"key": key}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i]] = extra[i+1]
	}
	return b
}

// limitedEnv has the default limits (30 an hour per address, 10 per
// visitor), a clock 10 minutes into an hour, and 127.0.0.1 as a trusted
// proxy, so X-Forwarded-For names the client.
func limitedEnv(t *testing.T) (*env, *settable) {
	clk := newSettable(time.Date(2025, time.March, 10, 12, 10, 0, 0, time.UTC))
	return newEnv(t, envOptions{initLimits: true, clock: clk.now, trusted: "127.0.0.1/32"}), clk
}

// The 31st init from one address within the hour is a 429 without
// limit_reached, with Retry-After until the hour ends, and uses none of
// the allowance; another address still starts conversations; the next
// hour clears it.
func TestInitLimitPerAddress(t *testing.T) {
	t.Parallel()
	e, clk := limitedEnv(t)
	for i := range initlimit.DefaultPerIP {
		if r := e.do("POST", "/api/widget/init", initBody(e.key), from("203.0.113.7")); r.status != 200 {
			t.Fatalf("init %d: %d %s", i+1, r.status, r.raw)
		}
	}
	r := e.do("POST", "/api/widget/init", initBody(e.key), from("203.0.113.7"))
	wantError(t, r, 429, "")
	if r.header.Get("Retry-After") != "3000" || !strings.Contains(r.str("error"), "from this address") {
		t.Fatalf("refused init: Retry-After %q, error %q", r.header.Get("Retry-After"), r.str("error"))
	}
	if r.header.Get("Access-Control-Expose-Headers") != "Retry-After" {
		t.Fatal("Retry-After is not exposed to the widget on other origins")
	}
	if n := e.conversations(); n != initlimit.DefaultPerIP {
		t.Fatalf("usage %d conversations after a refused init, want %d", n, initlimit.DefaultPerIP)
	}
	if r := e.do("POST", "/api/widget/init", initBody(e.key), from("198.51.100.2")); r.status != 200 {
		t.Fatalf("another address: %d %s", r.status, r.raw)
	}
	// IPv6 clients count by their /64.
	for i := range initlimit.DefaultPerIP {
		e.do("POST", "/api/widget/init", initBody(e.key), from(fmt.Sprintf("2001:db8:1:2::%x", i+1)))
	}
	if r := e.do("POST", "/api/widget/init", initBody(e.key), from("2001:db8:1:2::ffff")); r.status != 429 {
		t.Fatalf("another address of the same /64: %d", r.status)
	}
	clk.add(50 * time.Minute) // the next hour
	if r := e.do("POST", "/api/widget/init", initBody(e.key), from("203.0.113.7")); r.status != 200 {
		t.Fatalf("the next hour: %d %s", r.status, r.raw)
	}
	// The refusals are counted for the operator.
	m := string(e.do("GET", "/metrics", nil, map[string]string{"remote": "127.0.0.1:9"}).raw)
	if !strings.Contains(m, `parley_init_limited_total{scope="ip"} 2`) {
		t.Errorf("metrics lack the refusals:\n%s", m)
	}
}

// A visitor id the client sends may start 10 conversations an hour, from
// any address; a visitor the server names (none sent) is limited only by
// the address.
func TestInitLimitPerVisitor(t *testing.T) {
	t.Parallel()
	e, clk := limitedEnv(t)
	for i := range initlimit.DefaultPerVisitor {
		if r := e.do("POST", "/api/widget/init", initBody(e.key, "visitor_id", "v-1"), from("203.0.113."+strconv.Itoa(i+1))); r.status != 200 {
			t.Fatalf("init %d: %d", i+1, r.status)
		}
	}
	r := e.do("POST", "/api/widget/init", initBody(e.key, "visitor_id", "v-1"), from("203.0.113.99"))
	wantError(t, r, 429, "")
	if !strings.Contains(r.str("error"), "for this visitor") || r.header.Get("Retry-After") == "" {
		t.Fatalf("refused: %s %v", r.raw, r.header)
	}
	if n := e.conversations(); n != initlimit.DefaultPerVisitor {
		t.Fatalf("usage %d after a refused init", n)
	}
	// The refused visitor did not use up the address's count either.
	for i := range initlimit.DefaultPerIP {
		if r := e.do("POST", "/api/widget/init", initBody(e.key), from("203.0.113.99")); r.status != 200 {
			t.Fatalf("init %d from the refused visitor's address: %d", i+1, r.status)
		}
	}
	if r := e.do("POST", "/api/widget/init", initBody(e.key, "visitor_id", "v-2"), from("198.51.100.1")); r.status != 200 {
		t.Fatalf("another visitor: %d", r.status)
	}
	clk.add(time.Hour)
	if r := e.do("POST", "/api/widget/init", initBody(e.key, "visitor_id", "v-1"), from("203.0.113.99")); r.status != 200 {
		t.Fatalf("the next hour: %d", r.status)
	}
}

// An agent's own limits win over the defaults; 0 turns a limit off. The
// limits never reach visitors.
func TestInitLimitsFromAgentConfig(t *testing.T) {
	t.Parallel()
	e, _ := limitedEnv(t)
	_, tight := e.newAgent(e.account.ID, "Tight", `{"greeting":"Hi","limits":{"conversations_per_ip_per_hour":2,"conversations_per_visitor_per_hour":0}}`)
	_, open := e.newAgent(e.account.ID, "Open", `{"limits":{"conversations_per_ip_per_hour":0,"conversations_per_visitor_per_hour":0}}`)
	for i := range 2 {
		r := e.do("POST", "/api/widget/init", initBody(tight, "visitor_id", "same"), from("203.0.113.1"))
		if r.status != 200 {
			t.Fatalf("tight %d: %d", i+1, r.status)
		}
		var cfg map[string]any
		json.Unmarshal(mustJSON(t, r.body["config"]), &cfg)
		if _, leaked := cfg["limits"]; leaked || cfg["greeting"] != "Hi" {
			t.Fatalf("public config %v: the limits must not reach visitors", cfg)
		}
	}
	if r := e.do("POST", "/api/widget/init", initBody(tight), from("203.0.113.1")); r.status != 429 {
		t.Fatalf("tight, third: %d", r.status)
	}
	for i := range 2*initlimit.DefaultPerIP + 1 {
		if r := e.do("POST", "/api/widget/init", initBody(open, "visitor_id", "same"), from("203.0.113.1")); r.status != 200 {
			t.Fatalf("open agent, init %d: %d", i+1, r.status)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The limits are checked when an agent is saved: 400 naming the problem.
func TestInitLimitsValidated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, limits := range []string{
		`[]`, `7`, `{"conversations_per_ip_per_hour":-1}`, `{"conversations_per_ip_per_hour":1.5}`,
		`{"conversations_per_ip_per_hour":"30"}`, `{"conversations_per_ip_per_hour":null}`,
		`{"conversations_per_visitor_per_hour":100001}`, `{"conversation_per_ip":3}`,
	} {
		body := `{"chatbot_name":"L","config":{"limits":` + limits + `}}`
		r := e.api("POST", "/api/v1/agents", body)
		wantError(t, r, 400, "")
		if !strings.Contains(r.str("error"), "limits") {
			t.Errorf("%s: %q does not name the limits", limits, r.str("error"))
		}
		wantError(t, e.api("PATCH", "/api/v1/agents/"+e.agent.ID, `{"config":{"limits":`+limits+`}}`), 400, "")
	}
	r := e.api("POST", "/api/v1/agents", `{"chatbot_name":"L","config":{"limits":{"conversations_per_ip_per_hour":100000,"conversations_per_visitor_per_hour":0}}}`)
	if r.status != 201 {
		t.Fatalf("valid limits: %d %s", r.status, r.raw)
	}
	// The owner sees them in the management API (only visitors do not).
	if !strings.Contains(string(r.raw), `"conversations_per_ip_per_hour":100000`) {
		t.Fatalf("the API does not show the limits: %s", r.raw)
	}
	if ag, err := e.store.Agent(context.Background(), e.account.ID, e.agent.ID); err != nil || strings.Contains(string(ag.Config.JSON()), "limits") {
		t.Fatalf("a refused PATCH changed the agent: %s %v", ag.Config.JSON(), err)
	}
}
