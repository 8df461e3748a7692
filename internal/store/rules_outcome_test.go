package store

import (
	"testing"
	"time"

	"parley/internal/domain"
)

// TestHandedOffOutcomes: whatever else happened in a handed-off
// conversation (answers, misses, thumbs, an operator's message), its
// outcome is the one HandedOffOutcomes gives for whether the visitor
// asked — which is what lets the stores hand off in one UPDATE.
func TestHandedOffOutcomes(t *testing.T) {
	t.Parallel()
	asked, notAsked := HandedOffOutcomes()
	if asked != domain.OutcomeHandedOff || notAsked != domain.OutcomeAbandoned {
		t.Errorf("HandedOffOutcomes = %s, %s; want %s, %s", asked, notAsked, domain.OutcomeHandedOff, domain.OutcomeAbandoned)
	}
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for mask := range 1 << 6 {
		c := domain.Conversation{
			Asked:    mask&1 != 0,
			Answered: mask&2 != 0,
			HandedAt: at,
		}
		if mask&4 != 0 {
			c.Misses = 2
		}
		if mask&8 != 0 {
			c.NotHelpful = 1
		}
		if mask&16 != 0 {
			c.Helpful = 3
		}
		if mask&32 != 0 {
			c.FirstOperatorAt = at.Add(time.Minute)
		}
		want := notAsked
		if c.Asked {
			want = asked
		}
		if got := c.Outcome(); got != want {
			t.Errorf("%+v: Outcome %s, HandedOffOutcomes says %s", c, got, want)
		}
	}
}
