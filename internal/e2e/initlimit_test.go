package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/internal/store"
)

const tLater = "Too many new chats from your network right now. Please try again later."

// An agent's hourly limit on new conversations from one address answers
// init with a 429 whose Retry-After is up to an hour: the widget does not
// wait it out with the panel open, but says at once to try later, and
// offers Retry.
func TestInitLimitInTheWidget(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)
	ctx := context.Background()
	ag, err := s.store.AgentByKey(ctx, s.keys["en"])
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	json.Unmarshal(ag.Config.JSON(), &cfg)
	cfg["limits"] = map[string]int{"conversations_per_ip_per_hour": 1}
	raw, _ := json.Marshal(cfg)
	if _, err := s.store.UpdateAgent(ctx, ag.AccountID, ag.ID, store.AgentPatch{Config: raw}); err != nil {
		t.Fatal(err)
	}

	first := newPage(t, 60*time.Second)
	openChat(first, h.url(pageOptions{})) // the address's one conversation this hour

	p := newPage(t, 60*time.Second) // another visitor (fresh storage), same address
	before := s.faults.count(initRoute)
	p.navigate(h.url(pageOptions{}))
	p.wait("the launcher", W+`?.querySelector('.la')`)
	p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.la')`)))
	p.wait("the try-later notice", W+`?.querySelector('.st')?.textContent.startsWith(`+jsString(tLater)+`)`)
	if !retryButton(p) {
		t.Error("no Retry offered")
	}
	time.Sleep(1500 * time.Millisecond) // a retry, if any, would happen by now
	if n := s.faults.count(initRoute) - before; n != 1 {
		t.Errorf("%d init requests, want 1 (no waiting retry)", n)
	}
	if n := eval[int](p, W+`.querySelectorAll('.m.a').length`); n != 0 {
		t.Errorf("%d agent messages shown without a conversation", n)
	}
	p.checkConsole(failedLoads)
	// For a person to look at (kept with go test -artifacts), checked
	// like the others.
	b := capture(p, "widget-init-limited-en.png", false, widgetProbes)
	_ = os.WriteFile(filepath.Join(t.ArtifactDir(), "widget-init-limited-en.png"), b, 0o644)
}
