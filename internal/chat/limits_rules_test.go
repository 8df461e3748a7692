package chat

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"parley/internal/domain"
)

// New conversations count against the account's monthly allowance, then
// against overage up to the spend cap; a refusal creates nothing and is
// told to the observer; the next month (on the clock) starts afresh.
func TestInitQuota(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		limits   domain.Limits
		admitted int
		refusal  error
		reason   string
	}{
		{"allowance, no overage", domain.Limits{MonthlyConversations: 3}, 3, domain.ErrQuota, "quota"},
		{"overage up to the spend cap", domain.Limits{MonthlyConversations: 2, OveragePriceCents: 5, SpendCapCents: 10}, 4, domain.ErrSpendCap, "spend_cap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, fixtureOptions{limits: tt.limits})
			for i := range tt.admitted {
				if _, err := f.svc.Init(f.ctx, InitInput{Key: f.key}); err != nil {
					t.Fatalf("init %d: %v", i+1, err)
				}
			}
			f.notes.take()
			for range 2 {
				if _, err := f.svc.Init(f.ctx, InitInput{Key: f.key}); !errors.Is(err, tt.refusal) {
					t.Fatalf("init past the limit: %v, want %v", err, tt.refusal)
				}
			}
			if !slices.Equal(f.observer.refused, []string{tt.reason, tt.reason}) {
				t.Fatalf("observer told %q", f.observer.refused)
			}
			if got := f.notes.take(); got != nil {
				t.Fatalf("a refused init published %q", got)
			}
			if u, err := f.store.Usage(f.ctx, f.account.ID, "2025-03"); err != nil || u.Conversations != tt.admitted {
				t.Fatalf("usage %+v, %v; want %d conversations", u, err, tt.admitted)
			}

			f.clock.Set(start.AddDate(0, 1, 0)) // April
			if res, err := f.svc.Init(f.ctx, InitInput{Key: f.key}); err != nil || f.conv(res.ConversationID).CreatedAt.Month() != 4 {
				t.Fatalf("init in the next month: %+v, %v", res, err)
			}
		})
	}
}

// A conversation holds at most MaxMessages messages: the visitor's message
// that reaches the cap is still answered (the AI's reply may be the one
// past it), the next one is refused; an operator can still answer up to
// twice the cap.
func TestMessageCap(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant, maxMessages: 3})
		conv := f.init()
		for i := range 2 { // 1+1, then 3+1: the reply to the third message is the fourth
			if res, err := f.chat(conv, fmt.Sprint("question ", i+1)); err != nil || res.Response == "" {
				t.Fatalf("chat %d: %+v, %v", i+1, res, err)
			}
		}
		if _, err := f.chat(conv, "one more"); !errors.Is(err, domain.ErrConversationFull) {
			t.Fatalf("chat past the cap: %v, want ErrConversationFull", err)
		}
		f.wantTranscript(conv, "visitor: question 1", "ai: We open at 9.", "visitor: question 2", "ai: We open at 9.")

		for i := range 2 { // 4 → 6 = 2×3
			if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{}, fmt.Sprint("operator ", i+1)); err != nil {
				t.Fatalf("operator reply %d to a full conversation: %v", i+1, err)
			}
		}
		if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{}, "too many"); !errors.Is(err, domain.ErrConversationFull) {
			t.Fatalf("operator reply at twice the cap: %v, want ErrConversationFull", err)
		}
		if n := len(f.transcript(conv)); n != 6 {
			t.Fatalf("%d messages stored, want 6", n)
		}
	})
}

// A message cap reached while a human handles the conversation refuses
// the visitor's message too (it is not stored, no handoff body).
func TestMessageCapWhileHumanHandles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{maxMessages: 2})
	conv := f.init()
	if _, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if res, err := f.chat(conv, fmt.Sprint("m", i)); err != nil || !res.Handoff {
			t.Fatalf("chat %d: %+v, %v", i, res, err)
		}
	}
	if _, err := f.chat(conv, "m2"); !errors.Is(err, domain.ErrConversationFull) {
		t.Fatalf("chat past the cap: %v", err)
	}
	f.wantTranscript(conv, "visitor: m0", "visitor: m1")
}
