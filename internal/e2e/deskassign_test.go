package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/internal/domain"
)

// The operator desk in Chromium (issue 19): two operators in two browser
// contexts. Both are online while their tabs are open; the owner assigns a
// conversation to Oleg, whose "Mine" view shows it live; Oleg resolves it
// and it leaves his list; the visitor writes again and it is back.
func TestDeskAssignTwoOperators(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	_, oleg := dashboardUsers(t, s)
	v := s.visitor("en")
	v.say("What are your opening hours?")

	owner, op := newPage(t, 90*time.Second), newPage(t, 90*time.Second)
	signIn(owner, s.srv.URL, "owner@example.com")
	signIn(op, s.srv.URL, "oleg@example.com")
	op.navigate(s.srv.URL + "/inbox?view=mine")
	settle(op, "Oleg's empty Mine view", `document.querySelector('#inbox-view').value == 'mine' && !!document.querySelector('#inbox .empty')`)
	// Both tabs are open: both online (heartbeats from the pages).
	ctx := context.Background()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := s.desk.OperatorsOnline(ctx, oleg.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d operators online, want 2", n)
		}
	}
	if !strings.Contains(eval[string](op, `document.querySelector('.presence').textContent`), "Online") {
		t.Fatal("the header does not say Online")
	}

	owner.navigate(s.srv.URL + "/conversations/" + v.conv)
	settle(owner, "the assign select", `!!document.querySelector('#assign-user')`)
	label := eval[string](owner, `[...document.querySelectorAll('#assign-user option')].find(o => o.value == '`+oleg.ID+`').textContent`)
	if !strings.Contains(label, "Oleg") || !strings.Contains(label, "online") {
		t.Fatalf("Oleg's option reads %q; want his name, online", label)
	}
	// Chosen and sent in one step: the live region may redraw the form
	// (the stream's catch-up on open) between two.
	eval[bool](owner, `(document.querySelector('#assign-user').value = '`+oleg.ID+`', document.querySelector('form.assign').requestSubmit(), true)`)
	settle(owner, "the assignment", `document.querySelector('.state') && document.querySelector('.state').textContent.includes('Oleg')`)

	// The owner's controls in the split view, wide and narrow: the Show
	// select, Resolve and Assign to fit the middle column (nothing wider
	// than the page, the assign group inside the conversation's column).
	for _, w := range []struct {
		name string
		x, y int64
	}{{"wide", 1280, 860}, {"narrow", 390, 844}} {
		owner.do(chromedp.EmulateViewport(w.x, w.y))
		owner.navigate(s.srv.URL + "/conversations/" + v.conv)
		settle(owner, "the assigned conversation, "+w.name, `!!document.querySelector('#assign-user') && document.readyState == 'complete'`)
		if msg := eval[string](owner, deskFitJS); msg != "" {
			t.Errorf("%s: %s", w.name, msg)
		}
		shotDesk(t, owner, "desk-assign-"+w.name+"-en")
	}

	// Oleg's open Mine view shows it without a reload.
	settle(op, "the conversation in Oleg's Mine, live", `!!document.querySelector('#inbox tr[data-id="`+v.conv+`"]')`)
	c, err := s.store.Conversation(ctx, v.conv)
	if err != nil || c.AssigneeID != oleg.ID || c.Mode != domain.ModeHuman {
		t.Fatalf("stored: %+v, %v", c, err)
	}

	// Oleg resolves it: it leaves his list.
	op.click(`document.querySelector('#inbox tr[data-id="` + v.conv + `"] a')`)
	settle(op, "the conversation", `!!document.querySelector('#desk-resolve')`)
	op.click(`document.querySelector('#desk-resolve')`)
	settle(op, "the resolved conversation", `!!document.querySelector('#desk-reopen')`)
	op.navigate(s.srv.URL + "/inbox?view=mine")
	settle(op, "Mine without it", `document.querySelector('#inbox-view').value == 'mine' && !document.querySelector('#inbox tr[data-id="`+v.conv+`"]')`)
	// The visitor writes again: it is open, and back in Mine, live.
	v.say("One more thing")
	settle(op, "the reopened conversation in Mine", `!!document.querySelector('#inbox tr[data-id="`+v.conv+`"]')`)

	// From the keyboard: e submits the resolve form (data-key="e").
	op.navigate(s.srv.URL + "/conversations/" + v.conv + "?view=mine")
	settle(op, "the reopened conversation", `!!document.querySelector('form[data-key="e"] #desk-resolve') && document.readyState == 'complete'`)
	op.do(chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur()`))
	press(op, "e")
	settle(op, "e: resolved", `!!document.querySelector('#desk-reopen') && document.readyState == 'complete'`)
	if c, err := s.store.Conversation(ctx, v.conv); err != nil || c.Status != domain.StatusResolved {
		t.Fatalf("after e: %+v, %v", c, err)
	}
	// The Resolved view beside the conversation, wide and narrow: the row
	// shows its assignee and the badge.
	for _, w := range []struct {
		name string
		x, y int64
	}{{"wide", 1280, 860}, {"narrow", 390, 844}} {
		op.do(chromedp.EmulateViewport(w.x, w.y))
		page := "/conversations/" + v.conv + "?view=resolved"
		if w.name == "narrow" {
			page = "/inbox?view=resolved" // the list is a view of its own there
		}
		op.navigate(s.srv.URL + page)
		settle(op, "the Resolved view, "+w.name, `document.querySelector('#inbox-view').value == 'resolved' && document.querySelector('#inbox tr[data-id="`+v.conv+`"] .badge.resolved') && document.readyState == 'complete'`)
		if got := eval[string](op, `document.querySelector('#inbox tr[data-id="`+v.conv+`"] .assignee').textContent`); !strings.Contains(got, "Oleg") {
			t.Errorf("%s: the resolved row's assignee reads %q", w.name, got)
		}
		if msg := eval[string](op, deskFitJS); msg != "" {
			t.Errorf("%s: %s", w.name, msg)
		}
		shotDesk(t, op, "desk-resolved-"+w.name+"-en")
	}
	op.do(chromedp.EmulateViewport(1280, 860))

	// Away: Oleg no longer counts as online.
	op.click(`document.querySelector('#presence-toggle')`)
	settle(op, "away", `!!document.querySelector('.presence-away')`)
	if n, _ := s.desk.OperatorsOnline(ctx, oleg.AccountID); n != 1 {
		t.Fatalf("%d online with Oleg away, want 1", n)
	}
	owner.checkConsole()
	op.checkConsole()
}

// deskFitJS is "" when the desk's controls fit the page: nothing wider
// than the viewport, and the shown Show select, resolve/reopen and assign
// forms inside their column; else what sticks out.
const deskFitJS = `(() => {
  const out = [];
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push('the page scrolls sideways (' + document.documentElement.scrollWidth + ' > ' + innerWidth + ')');
  const inside = (sel, colSel) => {
    const el = document.querySelector(sel), col = el && el.closest(colSel);
    if (!el || !col || getComputedStyle(col).display == 'none') return;
    const r = el.getBoundingClientRect(), c = col.getBoundingClientRect();
    if (r.left < c.left - 1 || r.right > c.right + 1) out.push(sel + ' sticks out of its column (' + Math.round(r.left) + '..' + Math.round(r.right) + ' in ' + Math.round(c.left) + '..' + Math.round(c.right) + ')');
  };
  inside('#inbox-view', '.desk-list');
  inside('form.assign', '.desk-main');
  inside('#desk-resolve', '.desk-main');
  inside('#desk-reopen', '.desk-main');
  inside('form.presence', 'header.top');
  return out.join('; ');
})()`
