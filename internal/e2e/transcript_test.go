package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/internal/domain"
	"parley/internal/store"
)

// TestDashboardOlderMessages: a conversation of 250 messages shows its
// newest 100; "Load older messages", used with the keyboard, puts the
// older ones above a page at a time, tells a screen reader so and keeps
// the focus; once nothing older is left the link goes and the focus moves
// to the older messages; a message arriving live then joins the newest
// without dropping what was loaded.
func TestDashboardOlderMessages(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	dashboardUsers(t, s)
	v := s.visitor("en")
	for i := range 250 { // straight into the store, in order
		role := []domain.Role{domain.RoleVisitor, domain.RoleAI}[i%2]
		if _, _, err := s.store.AddMessage(context.Background(), store.NewMessage{ConversationID: v.conv, Role: role, Text: fmt.Sprintf("Message %d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}

	p := newPage(t, 90*time.Second)
	p.do(chromedp.EmulateViewport(1280, 900))
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/conversations/" + v.conv)
	settle(p, "the conversation", `!!document.querySelector('a[data-older]')`)
	shown := func() int { return eval[int](p, `document.querySelectorAll('.transcript > li[data-seq]').length`) }
	if n := shown(); n != 100 {
		t.Fatalf("%d messages shown, want the newest 100", n)
	}
	if names := axNames(p, "link"); !slices.Contains(names, "Load older messages") {
		t.Errorf("links %q: none named Load older messages", names)
	}
	shot(t, p, "conversation-newest-en")

	// Tab to the link, as a keyboard user does, and press Enter.
	for i := 0; i < 40 && !eval[bool](p, `document.activeElement?.hasAttribute('data-older')`); i++ {
		p.keys(kb.Tab)
	}
	p.keys(kb.Enter)
	p.wait("the older page", `document.querySelectorAll('.transcript > li[data-seq]').length == 200`)
	if !eval[bool](p, `document.activeElement?.hasAttribute('data-older')`) || eval[string](p, `location.search`) != "" {
		t.Error("loading older messages left the page or lost the focus")
	}
	if got := eval[string](p, `document.getElementById('older-status').textContent`); got != "Older messages loaded above." {
		t.Errorf("status %q", got)
	}
	p.keys(kb.Enter)
	p.wait("the oldest page", `document.querySelectorAll('.transcript > li[data-seq]').length == 250 && !document.querySelector('a[data-older]')`)
	if !eval[bool](p, `document.activeElement?.matches('ol[data-older-list]')`) {
		t.Error("the focus did not move to the older messages when the link went")
	}
	seqs := func() []int {
		return eval[[]int](p, `[...document.querySelectorAll('.transcript > li[data-seq]')].map(li => +li.dataset.seq)`)
	}
	if got := seqs(); !slices.IsSorted(got) || slices.Compact(slices.Clone(got))[0] != got[0] || len(slices.Compact(slices.Clone(got))) != 250 {
		t.Errorf("the messages are not shown once each, in order: %v", got)
	}
	shot(t, p, "conversation-older-en")

	// A new message arrives live: it joins the end, nothing loaded goes.
	v.say("One more question")
	p.wait("the live message and its answer", `document.querySelectorAll('.transcript > li[data-seq]').length == 252`)
	got := seqs()
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != 252 {
		t.Errorf("after the live update the messages are %v", got)
	}
	if last := eval[string](p, `[...document.querySelectorAll('.transcript > li[data-seq] .text')].at(-2).textContent`); last != "One more question" {
		t.Errorf("the live message shows as %q", last)
	}
	p.checkConsole()
}

// shot saves a screenshot of the window, scrolled to the top of the page,
// in the test's artifact directory (and docs/screenshots with
// PARLEY_UPDATE_SCREENSHOTS=1).
func shot(t *testing.T, p *page, name string) {
	t.Helper()
	eval[bool](p, `(window.scrollTo(0, 0), true)`)
	file := "dashboard-" + name + ".png"
	b := recompress(t, capture(p, file, false, dashboardProbes))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), file), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s: %d bytes", file, len(b))
}
