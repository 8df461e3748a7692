package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

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

	// Away: Oleg no longer counts as online.
	op.click(`document.querySelector('#presence-toggle')`)
	settle(op, "away", `!!document.querySelector('.presence-away')`)
	if n, _ := s.desk.OperatorsOnline(ctx, oleg.AccountID); n != 1 {
		t.Fatalf("%d online with Oleg away, want 1", n)
	}
	owner.checkConsole()
	op.checkConsole()
}
