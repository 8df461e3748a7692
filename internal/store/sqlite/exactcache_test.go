package sqlite

import (
	"strconv"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// TestExactCacheStaleRead: a read that began before a write to its
// conversation was committed does not store what it read, and one that
// began after does; other conversations' reads are unaffected.
func TestExactCacheStaleRead(t *testing.T) {
	t.Parallel()
	c := newExactCache[store.PollState](maxPollStates)
	old := store.PollState{AgentID: "ag", Mode: "ai", LastOperatorSeq: 1}

	_, r, ok := c.get("cv1")
	if ok || r == nil {
		t.Fatal("an empty cache had cv1")
	}
	_, other, _ := c.get("cv2")
	c.forget("cv1") // a write to cv1 committed while both reads ran
	c.done("cv1", r, old, true)
	c.done("cv2", other, old, true)
	if _, _, ok := c.get("cv1"); ok {
		t.Fatal("a read made stale by a write was cached")
	}
	if st, _, ok := c.get("cv2"); !ok || st != old {
		t.Fatal("a read of another conversation was not cached")
	}

	_, r, _ = c.get("cv3")
	c.forgetAll()
	c.done("cv3", r, old, true)
	if _, _, ok := c.get("cv3"); ok {
		t.Fatal("a read made stale by forgetAll was cached")
	}
	if _, _, ok := c.get("cv2"); ok {
		t.Fatal("forgetAll kept a state")
	}

	// A failed read stores nothing.
	_, r, _ = c.get("cv4")
	c.done("cv4", r, old, false)
	if _, _, ok := c.get("cv4"); ok {
		t.Fatal("a failed read was cached")
	}
}

// TestExactCacheBound: the cache never holds more than maxPollStates.
func TestExactCacheBound(t *testing.T) {
	t.Parallel()
	c := newExactCache[store.PollState](maxPollStates)
	for i := range maxPollStates + 10 {
		id := strconv.Itoa(i)
		_, r, _ := c.get(id)
		c.done(id, r, store.PollState{}, true)
	}
	if len(c.values) != maxPollStates || len(c.reading) != 0 {
		t.Fatalf("%d states, %d reads in flight", len(c.values), len(c.reading))
	}
}

// TestPollStateAfterWritesUnderReaders: however readers race to fill the
// cache, once a write returns every PollState shows it — the next operator
// message, the mode it set.
func TestPollStateAfterWritesUnderReaders(t *testing.T) {
	t.Parallel()
	f := newConvFixture(t)
	s, ctx, ag, conv := f.s, t.Context(), f.ag, f.conv

	stop := raceReaders(t, func() error { _, err := s.PollState(ctx, conv.ID); return err })
	modes := []domain.Mode{domain.ModeHuman, domain.ModeAI}
	for i := range 60 {
		var want store.PollState
		if i%3 == 2 {
			if _, err := s.SetMode(ctx, conv.ID, modes[i%2]); err != nil {
				t.Fatal(err)
			}
			prev, _ := s.PollState(ctx, conv.ID)
			want = store.PollState{AgentID: ag.ID, Mode: modes[i%2], LastOperatorSeq: prev.LastOperatorSeq, Status: domain.StatusOpen}
		} else {
			m, c, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleOperator, Text: "hi", OperatorName: "Ana", SetMode: modes[i%2]})
			if err != nil {
				t.Fatal(err)
			}
			want = store.PollState{AgentID: ag.ID, Mode: c.Mode, LastOperatorSeq: m.Seq, Status: domain.StatusOpen}
		}
		for range 3 {
			if got, err := s.PollState(ctx, conv.ID); err != nil || got != want {
				t.Fatalf("write %d: PollState = %+v (%v), want %+v", i, got, err, want)
			}
		}
	}
	stop()
}
