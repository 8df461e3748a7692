package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The settings form edits the allowed origins (one per line) and
// require_origin; a bad origin is refused with the form's message and
// nothing saved; emptied, the agent is open to any site again.
func TestAgentOriginsForm(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	form := func(origins string, require bool) url.Values {
		v := url.Values{"name": {"Helper"}, "color": {"#2563eb"}, "position": {"right"}, "allowed_origins": {origins}}
		if require {
			v.Set("require_origin", "on")
		}
		return v
	}
	if p := e.post("/agents/"+a.ID, form("https://shop.example\n\n  https://*.shop.example  \n", true)); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	ag, err := e.st.Agent(ctx, a.AccountID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	c := ag.Config
	if strings.Join(c.AllowedOrigins, " ") != "https://shop.example https://*.shop.example" || c.RequireOrigin == nil || !*c.RequireOrigin {
		t.Fatalf("stored %s", c.JSON())
	}
	page := e.get("/agents/" + a.ID)
	for _, want := range []string{">https://shop.example\nhttps://*.shop.example</textarea>", `name="require_origin" value="on" checked`} {
		if !strings.Contains(page.body, want) {
			t.Fatalf("the form does not show %q", want)
		}
	}
	p := e.post("/agents/"+a.ID, form("https://shop.example/checkout", false))
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Each allowed site must be an address") {
		t.Fatalf("bad origin: %d", p.status)
	}
	if ag, _ := e.st.Agent(ctx, a.AccountID, a.ID); len(ag.Config.AllowedOrigins) != 2 {
		t.Fatalf("a refused form changed the origins: %s", ag.Config.JSON())
	}
	if p := e.post("/agents/"+a.ID, form("", false)); p.status != http.StatusSeeOther {
		t.Fatalf("clear: %d", p.status)
	}
	if ag, _ := e.st.Agent(ctx, a.AccountID, a.ID); strings.Contains(string(ag.Config.JSON()), "origin") {
		t.Fatalf("after clearing: %s", ag.Config.JSON())
	}
}
