package chat

import (
	"context"
	"errors"

	"parley/internal/domain"
)

// errTakenOver cancels a streaming AI call when an operator takes the
// conversation over.
var errTakenOver = errors.New("chat: an operator took the conversation over")

// watchTakeover returns ctx for a streaming AI call that ends as soon as an
// operator takes the conversation over, and stop, which ends the watch and
// reports whether that happened. A plain reply is simply not stored after a
// takeover (store.NewMessage.RequireMode); a streamed one is already on the
// visitor's screen, so it is cut short instead of being written to its end
// by an AI that no longer has the conversation. A takeover the watch
// misses (between the visitor's message and the first subscription) still
// keeps the reply out of the store.
func (s *Service) watchTakeover(ctx context.Context, convID string) (context.Context, func() bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	exited := make(chan struct{})
	signal, unsubscribe := s.notifier.Subscribe(convID)
	go func() {
		defer close(exited)
		defer func() { unsubscribe() }()
		for {
			select {
			case <-signal:
			case <-done:
				return
			case <-ctx.Done():
				return
			}
			// Subscribe again before reading, so a change right after the
			// read is not missed.
			unsubscribe()
			signal, unsubscribe = s.notifier.Subscribe(convID)
			conv, err := s.store.Conversation(ctx, convID)
			if err == nil && conv.Mode == domain.ModeHuman {
				cancel(errTakenOver)
				return
			}
		}
	}()
	return ctx, func() bool {
		close(done)
		<-exited
		taken := errors.Is(context.Cause(ctx), errTakenOver)
		cancel(nil)
		return taken
	}
}
