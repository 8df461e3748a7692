package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/internal/store"
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

// Under the allowed origins the page lists the sites seen lately, most
// recent first, marks those the saved list refuses, and offers each to
// the list with a button the script shows (hidden without it).
func TestAgentOriginsSeen(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	if page := e.get("/agents/" + a.ID); strings.Contains(page.body, `id="origins-seen"`) {
		t.Fatal("a hint with nothing seen")
	}
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
	for _, o := range []store.SeenOrigin{
		{AgentID: a.ID, Origin: "https://shop.example", Count: 7, LastSeen: at},
		{AgentID: a.ID, Origin: "https://copycat.example", Count: 2, LastSeen: at.Add(time.Minute)},
	} {
		if err := e.st.RecordOrigin(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	v := url.Values{"name": {"Helper"}, "color": {"#2563eb"}, "position": {"right"}, "allowed_origins": {"https://shop.example"}}
	if p := e.post("/agents/"+a.ID, v); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d", p.status)
	}
	body := e.get("/agents/" + a.ID).body
	i := strings.Index(body, `id="origins-seen"`)
	if i < 0 {
		t.Fatal("no hint of the origins seen")
	}
	hint := body[i:]
	hint = hint[:strings.Index(hint, "</ul>")]
	copycat, shop := strings.Index(hint, "copycat.example"), strings.Index(hint, "https://shop.example")
	if copycat < 0 || shop < 0 || copycat > shop {
		t.Fatalf("not both, most recent first:\n%s", hint)
	}
	lines := strings.Split(hint, "<li>")
	if len(lines) != 3 {
		t.Fatalf("%d items:\n%s", len(lines)-1, hint)
	}
	if !strings.Contains(lines[1], "refused by the list above") || strings.Contains(lines[2], "refused") {
		t.Errorf("refused marks wrong:\n%s", hint)
	}
	for _, want := range []string{
		"last seen " + at.Add(time.Minute).Format("2006-01-02 15:04") + ", 2 requests",
		"last seen " + at.Format("2006-01-02 15:04") + ", 7 requests",
		`<button type="button" hidden data-add-origin="https://copycat.example" data-to="allowed-origins"`,
	} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint lacks %q:\n%s", want, hint)
		}
	}
	// Another language.
	ru := httptest.NewRequest("GET", "http://example.com/agents/"+a.ID, nil)
	ru.Header.Set("Accept-Language", "ru")
	if !strings.Contains(e.send(e.session, ru).body, "отклонён списком выше") {
		t.Error("ru: no refused mark")
	}
}
