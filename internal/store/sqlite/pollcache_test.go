package sqlite

import (
	"strconv"
	"testing"

	"parley/internal/store"
)

// TestPollCacheStaleRead: a read that began before a write to its
// conversation was committed does not store what it read, and one that
// began after does; other conversations' reads are unaffected.
func TestPollCacheStaleRead(t *testing.T) {
	var c pollCache
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

// TestPollCacheBound: the cache never holds more than maxPollStates.
func TestPollCacheBound(t *testing.T) {
	var c pollCache
	for i := range maxPollStates + 10 {
		id := strconv.Itoa(i)
		_, r, _ := c.get(id)
		c.done(id, r, store.PollState{}, true)
	}
	if len(c.states) != maxPollStates || len(c.reading) != 0 {
		t.Fatalf("%d states, %d reads in flight", len(c.states), len(c.reading))
	}
}
