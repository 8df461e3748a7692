package storetest

import (
	"testing"
	"time"

	"parley/internal/store"
)

// testConversationsCreated counts an account's conversations in a
// half-open time range, to the millisecond, and no other account's.
func testConversationsCreated(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	other := setup(t, s, many)
	for _, d := range []time.Duration{-time.Hour, -10 * time.Minute, -time.Millisecond, 0, time.Minute} {
		f.conversation(t, s, base.Add(d))
	}
	other.conversation(t, s, base.Add(-time.Minute))
	for _, tt := range []struct {
		from, to time.Duration
		want     int
	}{
		{-10 * time.Minute, 0, 2}, // [from, to): the one at base is not in
		{-10 * time.Minute, time.Millisecond, 3},
		{-2 * time.Hour, 2 * time.Hour, 5},
		{time.Hour, 2 * time.Hour, 0},
	} {
		n, err := s.ConversationsCreated(t.Context(), f.account.ID, base.Add(tt.from), base.Add(tt.to))
		noErr(t, "ConversationsCreated", err)
		if n != tt.want {
			t.Errorf("[%v, %v): %d, want %d", tt.from, tt.to, n, tt.want)
		}
	}
}
