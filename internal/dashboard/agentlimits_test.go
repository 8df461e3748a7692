package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/internal/initlimit"
	"parley/internal/ratelimit"
)

// The agent's settings form shows and saves its limits on new
// conversations: empty is the instance's default (the placeholder), a
// number is stored, anything else is refused with the form's error and
// nothing saved.
func TestAgentLimitsForm(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	e.d.Limits = initlimit.New(ratelimit.NewMemoryCounter(initlimit.Window, 0, nil), initlimit.Settings{PerIP: 45, PerVisitor: 7}, nil)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	page := e.get("/agents/" + a.ID)
	for _, want := range []string{`name="limit_ip" value="" min="0" max="100000" step="1" placeholder="45"`, `name="limit_visitor" value="" min="0" max="100000" step="1" placeholder="7"`} {
		if !strings.Contains(page.body, want) {
			t.Fatalf("the settings form lacks %s", want)
		}
	}
	form := func(ip, visitor string) url.Values {
		return url.Values{"name": {"Helper"}, "color": {"#2563eb"}, "position": {"right"}, "limit_ip": {ip}, "limit_visitor": {visitor}}
	}
	limits := func() map[string]any {
		t.Helper()
		ag, err := e.st.Agent(ctx, a.AccountID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		json.Unmarshal(ag.Config.JSON(), &c)
		l, _ := c["limits"].(map[string]any)
		return l
	}
	if p := e.post("/agents/"+a.ID, form("200", "0")); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	if l := limits(); l["conversations_per_ip_per_hour"] != 200.0 || l["conversations_per_visitor_per_hour"] != 0.0 {
		t.Fatalf("stored limits %v", l)
	}
	if p := e.get("/agents/" + a.ID); !strings.Contains(p.body, `name="limit_ip" value="200"`) || !strings.Contains(p.body, `name="limit_visitor" value="0"`) {
		t.Fatal("the form does not show the stored limits")
	}
	for _, bad := range [][2]string{{"-1", ""}, {"1.5", ""}, {"", "100001"}, {"many", ""}} {
		p := e.post("/agents/"+a.ID, form(bad[0], bad[1]))
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "A limit must be a whole number") {
			t.Fatalf("%q: %d", bad, p.status)
		}
		if l := limits(); l["conversations_per_ip_per_hour"] != 200.0 {
			t.Fatalf("%q: a refused form changed the limits to %v", bad, l)
		}
	}
	// Emptied, the limits go back to the defaults: no "limits" left.
	if p := e.post("/agents/"+a.ID, form("", "")); p.status != http.StatusSeeOther {
		t.Fatalf("clear: %d", p.status)
	}
	if l := limits(); l != nil {
		t.Fatalf("after clearing: %v", l)
	}
}
