package ratelimit

import (
	"testing"
	"time"
)

func TestKeyed(t *testing.T) {
	k := NewKeyed(3, time.Minute, 2)
	t0 := time.Unix(6000, 0) // the start of a window
	for range 3 {
		if k.Exhausted(t0, "a@x", "1.2.3.4") {
			t.Fatal("exhausted before the limit")
		}
		k.Add(t0, "a@x", "1.2.3.4")
	}
	if !k.Exhausted(t0, "a@x") || !k.Exhausted(t0, "b@x", "1.2.3.4") {
		t.Fatal("not exhausted after the limit, by either key")
	}
	if k.Exhausted(t0, "b@x") {
		t.Fatal("an unrelated key is exhausted")
	}
	// Bounded: a third key in the window is not tracked.
	for range 5 {
		k.Add(t0, "c@x")
	}
	if k.Exhausted(t0, "c@x") {
		t.Fatal("a key beyond maxKeys was tracked")
	}
	// The next window starts afresh.
	if k.Exhausted(t0.Add(time.Minute), "a@x") {
		t.Fatal("the count survived into the next window")
	}
}

// Reset is the end of the window, when a refused key may come back.
func TestKeyedReset(t *testing.T) {
	k := NewKeyed(1, time.Hour, 10)
	now := time.Date(2026, 3, 20, 10, 1, 30, 0, time.UTC)
	if got := k.Reset(now); !got.Equal(time.Date(2026, 3, 20, 11, 0, 0, 0, time.UTC)) {
		t.Fatalf("Reset(%v) = %v, want 11:00", now, got)
	}
}
