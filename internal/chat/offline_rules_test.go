package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"parley/internal/domain"
)

// fakeOffline is the Offline hook as a test sets it.
type fakeOffline struct {
	offline bool
	seen    []string
	waiting []string
	replied []string
}

func (o *fakeOffline) Offline(context.Context, string) bool { return o.offline }
func (o *fakeOffline) Seen(_ context.Context, id string)    { o.seen = append(o.seen, id) }
func (o *fakeOffline) Waiting(_ context.Context, c domain.Conversation) {
	o.waiting = append(o.waiting, c.ID)
}
func (o *fakeOffline) Replied(_ context.Context, c domain.Conversation) {
	o.replied = append(o.replied, c.ID)
}

// A visitor asking for a person while the hook says offline gets the
// handoff message with Offline set; the hook is told of the wait, of
// polls and of operator replies. Online, Offline stays false.
func TestOfflineHandoff(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		for _, off := range []bool{true, false} {
			f := newFixture(t, fixtureOptions{instant: instant, config: handoffConfig})
			hook := &fakeOffline{offline: off}
			f.svc.offline = hook
			conv := f.init()
			res, err := f.chat(conv, "hello")
			if err != nil || res.Offline {
				t.Fatalf("an answered question: %+v, %v", res, err)
			}
			res, err = f.chat(conv, "Talk to a human")
			if err != nil || res.Response != "A person is coming." || res.Offline != off {
				t.Fatalf("offline=%v: Chat = %+v, %v", off, res, err)
			}
			if len(hook.waiting) != 1 || hook.waiting[0] != conv {
				t.Fatalf("Waiting told %v", hook.waiting)
			}
			if _, err := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv}); err != nil {
				t.Fatal(err)
			}
			if len(hook.seen) != 1 {
				t.Fatalf("Seen told %v", hook.seen)
			}
			if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ana"}, "Hi, Ana here"); err != nil {
				t.Fatal(err)
			}
			if len(hook.replied) != 1 {
				t.Fatalf("Replied told %v", hook.replied)
			}
		}
	})
}

// The offline form stores a valid address and optional name on the
// conversation, unverified, with the widget's language (a tag reduced to
// the language Parley speaks, none when not sent); bad input is a 400 and
// changes nothing;
// another agent's key or visitor is "conversation is invalid".
func TestContact(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	for _, bad := range []ContactInput{
		{Email: ""}, {Email: "not-an-address"}, {Email: "a@b.c", Name: strings.Repeat("x", 101)},
		{Email: "a@example.com\r\nBcc: x@example.com"}, {Email: "a@example.com", Name: "line\nbreak"},
		{Email: "a@example.com", Lang: "de"}, {Email: "a@example.com", Lang: " ro"},
	} {
		bad.Key, bad.ConversationID = f.key, conv
		var invalid *domain.InvalidError
		if err := f.svc.Contact(f.ctx, bad); !errors.As(err, &invalid) {
			t.Errorf("Contact(%+v) = %v, want 400", bad, err)
		}
	}
	if c := f.conv(conv); c.Email != "" {
		t.Fatalf("a refused contact was stored: %+v", c)
	}
	err := f.svc.Contact(f.ctx, ContactInput{Key: f.key, ConversationID: conv, Email: " ana@example.org ", Name: " Ana ", Lang: "ro-RO"})
	if err != nil {
		t.Fatal(err)
	}
	if c := f.conv(conv); c.Email != "ana@example.org" || c.Name != "Ana" || c.Verified {
		t.Fatalf("conversation = %+v", c)
	}
	if g, err := f.store.VisitorContact(f.ctx, conv); err != nil || g.Lang != "ro" || g.At.IsZero() {
		t.Fatalf("VisitorContact = %+v, %v", g, err)
	}
	if err := f.svc.Contact(f.ctx, ContactInput{Key: f.key, ConversationID: conv, Email: "ana@example.org"}); err != nil {
		t.Fatal(err)
	}
	if g, _ := f.store.VisitorContact(f.ctx, conv); g.Lang != "" {
		t.Fatalf("a contact without lang kept the earlier one: %+v", g)
	}
	_, otherKey := f.newAgent(f.account.ID, "{}")
	if err := f.svc.Contact(f.ctx, ContactInput{Key: otherKey, ConversationID: conv, Email: "x@example.org"}); !errors.Is(err, domain.ErrConversationInvalid) {
		t.Errorf("another agent's key: %v", err)
	}
	if err := f.svc.Contact(f.ctx, ContactInput{Key: f.key, ConversationID: conv, VisitorID: "v_someoneelse", Email: "x@example.org"}); !errors.Is(err, domain.ErrConversationInvalid) {
		t.Errorf("another visitor: %v", err)
	}
}

// A rating needs an operator's answer; it is 1–5, changeable, and the
// poll asks for it once the person handed the conversation back.
func TestRate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	if err := f.svc.Rate(f.ctx, RateInput{Key: f.key, ConversationID: conv, Rating: 5}); !errors.Is(err, ErrNotRatable) {
		t.Fatalf("rating an AI-only conversation: %v", err)
	}
	poll := func() PollResult {
		t.Helper()
		r, err := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if poll().Rate {
		t.Fatal("Rate before any operator")
	}
	if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ion"}, "Hello"); err != nil {
		t.Fatal(err)
	}
	if poll().Rate {
		t.Fatal("Rate while the operator still handles it")
	}
	if _, err := f.svc.Release(f.ctx, f.account.ID, conv); err != nil {
		t.Fatal(err)
	}
	if !poll().Rate {
		t.Fatal("no Rate after the hand-back")
	}
	// Resolved on the desk (mode and assignee kept): the rating is offered;
	// reopened while a person still handles it, it is not (the talk goes on).
	if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ion"}, "Back again"); err != nil {
		t.Fatal(err)
	}
	if poll().Rate {
		t.Fatal("Rate after the operator took it again")
	}
	if _, err := f.store.SetStatus(f.ctx, conv, domain.StatusResolved); err != nil {
		t.Fatal(err)
	}
	if r := poll(); !r.Rate || !r.Human {
		t.Fatalf("resolved, still human: poll = %+v, want Rate and Human", r)
	}
	if _, err := f.store.SetStatus(f.ctx, conv, domain.StatusOpen); err != nil {
		t.Fatal(err)
	}
	if poll().Rate {
		t.Fatal("Rate after reopening while the operator handles it")
	}
	for _, bad := range []int{0, 6, -1} {
		var invalid *domain.InvalidError
		if err := f.svc.Rate(f.ctx, RateInput{Key: f.key, ConversationID: conv, Rating: bad}); !errors.As(err, &invalid) {
			t.Errorf("Rate(%d) = %v, want 400", bad, err)
		}
	}
	if err := f.svc.Rate(f.ctx, RateInput{Key: f.key, ConversationID: conv, Rating: 4, Comment: strings.Repeat("é", 1001)}); err == nil {
		t.Error("a comment of 1001 characters passed")
	}
	if err := f.svc.Rate(f.ctx, RateInput{Key: f.key, ConversationID: conv, Rating: 2, Comment: "meh"}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Rate(f.ctx, RateInput{Key: f.key, ConversationID: conv, Rating: 5, Comment: " thanks! "}); err != nil {
		t.Fatal(err)
	}
	r, err := f.store.Rating(f.ctx, conv)
	if err != nil || r.Rating != 5 || r.Comment != "thanks!" || !r.At.Equal(start) {
		t.Fatalf("stored rating = %+v, %v", r, err)
	}
}
