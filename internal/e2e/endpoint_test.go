package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// An owner who points their agent's LLM at the server's loopback, in the
// browser: the settings form comes back with the reason at the top, what
// was typed kept, and nothing saved.
func TestDashboardRefusesPrivateLLMEndpoint(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner, _ := dashboardUsers(t, s)
	agents, err := s.store.Agents(context.Background(), owner.AccountID)
	if err != nil || len(agents) == 0 {
		t.Fatal(agents, err)
	}
	ag := agents[0]
	p := newPage(t, 60*time.Second)
	p.do(chromedp.EmulateViewport(1280, 900))
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/agents/" + ag.ID)
	settle(p, "the agent page", `!!document.querySelector('#base-url')`)
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#base-url')`)))
	p.keys("http://127.0.0.1:9100/v1")
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#model')`)))
	p.keys("m")
	p.click(`document.querySelector('#base-url').form.querySelector('button[type=submit]')`)
	settle(p, "the refusal", `document.querySelector('.error[role=alert]')`)

	alert := eval[string](p, `document.querySelector('.error[role=alert]').textContent`)
	want := "The LLM endpoint leads to 127.0.0.1, a loopback address. This server does not call private addresses; its administrator can allow them with PARLEY_FETCH_ALLOW_PRIVATE."
	if alert != want {
		t.Fatalf("alert %q, want %q", alert, want)
	}
	if typed := eval[string](p, `document.querySelector('#base-url').value`); typed != "http://127.0.0.1:9100/v1" {
		t.Errorf("the form lost what was typed: %q", typed)
	}
	b := capture(p, "dashboard-agent-endpoint-refused-en.png", true, dashboardProbes)
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "dashboard-agent-endpoint-refused-en.png"), recompress(t, b), 0o644); err != nil {
		t.Fatal(err)
	}
	stored, err := s.store.Agent(context.Background(), owner.AccountID, ag.ID)
	if err != nil || strings.Contains(string(stored.Config.JSON()), "127.0.0.1") {
		t.Fatalf("the refused endpoint was saved: %s, %v", stored.Config.JSON(), err)
	}
	p.checkConsole("status of 400") // the refused form's own answer
}
