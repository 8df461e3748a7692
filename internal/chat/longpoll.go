package chat

import (
	"context"
	"time"
)

// longPollReaders bounds the store reads long polls run at once. The reads
// are short and the store serves only a few at a time anyway (SQLite's
// read pool has four connections); when 10,000 long polls start or time
// out together, the others wait for a turn in a goroutine of a few KB
// rather than each in a reader goroutine (see offStack).
const longPollReaders = 8

// longPoll answers a poll with a wait: at once if there is news (operator
// messages after the cursor, or a mode other than the cursor's), else when
// an operator message arrives, the handling mode changes from what it was
// when the poll began, or the wait runs out.
//
// Thousands of visitors wait at once, so what a waiting poll keeps is what
// it costs: here a subscription, a timer and the waiting goroutine. Its
// store reads run on another, short-lived goroutine (offStack): the pure-Go
// SQLite runs the translated C engine on the calling goroutine's stack and
// grows it to 16–32 KB, and a goroutine keeps a grown stack while it
// sleeps. The waiting goroutine — the request's own, or the small one the
// server parks the connection with (package park) — stays at a few KB.
func (s *Service) longPoll(ctx context.Context, in PollInput, cur Cursor) (res PollResult, err error) {
	after := cur.Seq
	// Subscribe before the first read, so that a message written between
	// the read and the wait still wakes us. The first read is a short
	// poll's: it also proves that the conversation is the key's, and gives
	// the mode the poll began in.
	woken, unsub := s.notifier.Subscribe(in.ConversationID)
	defer func() { unsub() }()
	s.offStack(func() { res, err = s.pollNow(ctx, in.Key, in.Origin, in.ConversationID, after) })
	// A mode other than the cursor's changed after the answer that gave
	// the cursor, before this poll began: the client has not heard of it.
	if err != nil || len(res.Messages) > 0 || (cur.Set && res.Human != cur.Human) {
		return res, err
	}
	startHuman, startRate, startTyping := res.Human, res.Rate, res.Typing

	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	// While an operator types, answer when that signal goes stale at the
	// latest, so the widget learns whether they still type (a signal
	// that continues an indicator wakes no one: typing.go).
	wait := in.Wait
	if startTyping != "" {
		if d := res.typingUntil.Sub(s.now()) + 100*time.Millisecond; d < wait {
			wait = max(d, 100*time.Millisecond)
		}
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	// The reads after the first need not stop when the client leaves: they
	// are short, and the last one answers whoever is still there.
	rctx := context.WithoutCancel(ctx)
	for {
		select {
		case <-woken:
			unsub()
			woken, unsub = s.notifier.Subscribe(in.ConversationID)
			s.offStack(func() { res, err = s.pollOnce(rctx, "", in.ConversationID, after) })
			// Rate too: resolving keeps the mode human, and the widget
			// should offer the rating at once, not at the deadline.
			if err != nil || len(res.Messages) > 0 || res.Human != startHuman || res.Rate != startRate || res.Typing != startTyping {
				return res, err
			}
			continue
		case <-deadline.C:
		case <-ctx.Done():
		case <-s.stopping:
		}
		// Time is up (or the client left, or we shut down): answer with
		// the current state rather than an error.
		s.offStack(func() { res, err = s.pollOnce(rctx, "", in.ConversationID, after) })
		return res, err
	}
}

// offStack runs f on a new goroutine, once one of the long-poll read slots
// is free, and waits for it; that goroutine's stack, however far f grew
// it, is freed when it ends. A panic in f is raised again in the caller,
// where the server's recovery sees it.
func (s *Service) offStack(f func()) {
	s.longReads <- struct{}{}
	defer func() { <-s.longReads }()
	var p any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { p = recover() }()
		f()
	}()
	<-done
	if p != nil {
		panic(p)
	}
}
