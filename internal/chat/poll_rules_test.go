package chat

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"parley/internal/domain"
)

// A poll returns the operator's messages after the cursor, oldest first,
// never the visitor's or the AI's, with a cursor for the next poll and
// whether a human handles the conversation.
func TestPollReturnsOperatorMessagesAfterTheCursor(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	poll := func(after string) PollResult {
		t.Helper()
		res, err := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv, After: after})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if _, err := f.chat(conv, "Hi"); err != nil {
		t.Fatal(err)
	}
	first := poll("")
	if len(first.Messages) != 0 || first.Human {
		t.Fatalf("before any operator: %+v", first)
	}
	for _, text := range []string{"one", "two"} {
		if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ana"}, text); err != nil {
			t.Fatal(err)
		}
	}
	res := poll(first.Cursor)
	if len(res.Messages) != 2 || res.Messages[0].Text != "one" || res.Messages[1].Text != "two" || !res.Human {
		t.Fatalf("after two replies: %+v", res)
	}
	if again := poll(res.Cursor); len(again.Messages) != 0 || again.Cursor != res.Cursor {
		t.Fatalf("polling again from the cursor: %+v", again)
	}
	if all := poll(""); len(all.Messages) != 2 {
		t.Fatalf("from the start: %+v", all)
	}
}

func TestPollRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	_, otherKey := f.newAgent(f.account.ID, "{}")
	tests := []struct {
		name string
		in   PollInput
		want func(error) bool
	}{
		{"no conversation", PollInput{Key: f.key}, isInvalid},
		{"bad cursor", PollInput{Key: f.key, ConversationID: conv, After: "x1"}, isInvalid},
		{"wait too long", PollInput{Key: f.key, ConversationID: conv, Wait: MaxPollWait + time.Second}, isInvalid},
		{"negative wait", PollInput{Key: f.key, ConversationID: conv, Wait: -time.Second}, isInvalid},
		{"another agent's key", PollInput{Key: otherKey, ConversationID: conv}, is(domain.ErrConversationInvalid)},
		{"another agent's key, long poll", PollInput{Key: otherKey, ConversationID: conv, Wait: time.Second}, is(domain.ErrConversationInvalid)},
		{"unknown conversation", PollInput{Key: f.key, ConversationID: "cnv_unknown"}, is(domain.ErrConversationInvalid)},
	}
	for _, tt := range tests {
		if _, err := f.svc.Poll(f.ctx, tt.in); !tt.want(err) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// longPoll starts a poll that may wait up to wait, and returns once it is
// parked (Service.Waiting), with a channel for its answer.
func (f *fixture) longPoll(ctx context.Context, conv string, wait time.Duration) <-chan PollResult {
	f.t.Helper()
	before := f.svc.Waiting()
	done := make(chan PollResult, 1)
	go func() {
		res, err := f.svc.Poll(ctx, PollInput{Key: f.key, ConversationID: conv, Wait: wait})
		if err != nil && !errors.Is(err, context.Canceled) {
			f.t.Errorf("long poll: %v", err)
		}
		done <- res
	}()
	for f.svc.Waiting() == before {
		select {
		case res := <-done:
			f.t.Fatalf("the long poll answered before waiting: %+v", res)
		default:
			runtime.Gosched()
		}
	}
	return done
}

// A waiting long poll answers as soon as an operator replies, or the mode
// changes, or the service stops, or the client leaves — not at its
// deadline (30 s, far beyond the test's patience).
func TestLongPollWakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		wake      func(f *fixture, conv string, cancel func())
		wantMsgs  int
		wantHuman bool
	}{
		{"operator reply", func(f *fixture, conv string, _ func()) {
			f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{}, "Hello from a person")
		}, 1, true},
		{"takeover", func(f *fixture, conv string, _ func()) { f.svc.TakeOver(f.ctx, f.account.ID, conv) }, 0, true},
		{"service stops", func(f *fixture, _ string, _ func()) { f.svc.Stop() }, 0, false},
		{"client leaves", func(_ *fixture, _ string, cancel func()) { cancel() }, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, fixtureOptions{})
			conv := f.init()
			ctx, cancel := context.WithCancel(f.ctx)
			defer cancel()
			done := f.longPoll(ctx, conv, MaxPollWait)
			tt.wake(f, conv, cancel)
			select {
			case res := <-done:
				if len(res.Messages) != tt.wantMsgs || res.Human != tt.wantHuman {
					t.Fatalf("answer %+v, want %d messages, human %v", res, tt.wantMsgs, tt.wantHuman)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the long poll was not woken")
			}
			if n := f.svc.Waiting(); n != 0 {
				t.Fatalf("%d polls still counted as waiting", n)
			}
		})
	}
}

// A release wakes a poll that began human-handled; a change that is
// neither an operator message nor a mode change (a visitor's message, an
// AI reply) does not, and the poll answers at its deadline.
func TestLongPollModeAndDeadline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	if _, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil {
		t.Fatal(err)
	}
	done := f.longPoll(f.ctx, conv, MaxPollWait)
	f.svc.Release(f.ctx, f.account.ID, conv)
	select {
	case res := <-done:
		if res.Human || len(res.Messages) != 0 {
			t.Fatalf("after release: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the release did not wake the long poll")
	}

	began := time.Now()
	done = f.longPoll(f.ctx, conv, 300*time.Millisecond)
	if _, err := f.chat(conv, "Hello?"); err != nil { // wakes the poll, which waits on
		t.Fatal(err)
	}
	if res := <-done; res.Human || len(res.Messages) != 0 || time.Since(began) < 300*time.Millisecond {
		t.Fatalf("answered %+v after %v, want nothing at the deadline", res, time.Since(began))
	}
}

// A takeover or release that lands between a poll's answer and the
// client's next long poll is in no notification that poll can hear: the
// next poll begins in the new mode. The cursor carries the mode the answer
// reported, so the next poll answers at once instead of at its deadline
// (issue 15: the widget waited 25 s after a release).
func TestLongPollSeesAModeChangedSinceTheCursor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		change func(f *fixture, conv string)
		human  bool // the mode after the change
	}{
		{"release", func(f *fixture, conv string) { f.svc.Release(f.ctx, f.account.ID, conv) }, false},
		{"takeover", func(f *fixture, conv string) { f.svc.TakeOver(f.ctx, f.account.ID, conv) }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, fixtureOptions{})
			conv := f.init()
			if !tt.human {
				if _, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil {
					t.Fatal(err)
				}
			}
			res, err := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv})
			if err != nil || res.Human == tt.human {
				t.Fatalf("before the change: %+v, %v", res, err)
			}
			tt.change(f, conv)
			done := make(chan PollResult, 1)
			go func() {
				res, _ := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv, After: res.Cursor, Wait: MaxPollWait})
				done <- res
			}()
			var got PollResult
			select {
			case got = <-done:
				if got.Human != tt.human || len(got.Messages) != 0 {
					t.Fatalf("answer %+v, want human %v", got, tt.human)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the long poll waited for its deadline: the change since the cursor went unseen")
			}
			// The new cursor carries the new mode: the next long poll waits.
			ctx, cancel := context.WithCancel(f.ctx)
			go func() {
				f.svc.Poll(ctx, PollInput{Key: f.key, ConversationID: conv, After: got.Cursor, Wait: MaxPollWait})
				done <- PollResult{}
			}()
			for f.svc.Waiting() == 0 {
				select {
				case <-done:
					t.Fatal("a long poll with the new cursor answered at once")
				default:
					runtime.Gosched()
				}
			}
			cancel()
			<-done
		})
	}
}

// Resolving a human-handled conversation keeps the mode: the long poll
// still answers at once, with Rate, as the desk publishes the change
// (not at its deadline, 25 s later in the widget).
func TestLongPollWakesForTheRating(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ion"}, "Hello"); err != nil {
		t.Fatal(err)
	}
	first, err := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv})
	if err != nil || first.Rate || !first.Human {
		t.Fatalf("before resolving: %+v, %v", first, err)
	}
	woke := make(chan PollResult, 1)
	go func() {
		res, _ := f.svc.Poll(f.ctx, PollInput{Key: f.key, ConversationID: conv, After: first.Cursor, Wait: MaxPollWait})
		woke <- res
	}()
	// Once the poll counts as waiting it has subscribed (Waiting is counted
	// after the subscription and the first read).
	for deadline := time.Now().Add(10 * time.Second); f.svc.Waiting() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the long poll never began waiting")
		}
	}
	if _, err := f.store.SetStatus(f.ctx, conv, domain.StatusResolved); err != nil {
		t.Fatal(err)
	}
	f.notes.Publish(conv) // as desk.Service does after a status change
	select {
	case res := <-woke:
		if !res.Rate || !res.Human {
			t.Fatalf("after resolving: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("resolving did not wake the long poll")
	}
}
