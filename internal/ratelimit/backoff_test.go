package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

var testRule = BackoffRule{Free: 3, Base: time.Second, Cap: time.Minute, Decay: time.Hour}

// After Free failures each attempt waits 1 s, 2 s, 4 s … after the last
// failure, up to the cap.
func TestBackoffGrows(t *testing.T) {
	t.Parallel()
	b := NewBackoff(testRule, 100)
	now := time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		if w := b.Wait(now, "k"); w != 0 {
			t.Fatalf("failure %d: wait %v within the free ones", i, w)
		}
		b.Fail(now, "k")
	}
	for _, want := range []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60} {
		want *= time.Second
		if w := b.Wait(now, "k"); w != want {
			t.Fatalf("wait %v, want %v", w, want)
		}
		// Part of the wait has passed: the rest is what is said.
		if w := b.Wait(now.Add(want/2), "k"); w != want-want/2 {
			t.Fatalf("half-way: wait %v, want %v", w, want-want/2)
		}
		now = now.Add(want)
		if w := b.Wait(now, "k"); w != 0 {
			t.Fatalf("after waiting %v: still %v", want, w)
		}
		b.Fail(now, "k")
	}
	if w := b.Wait(now, "other"); w != 0 {
		t.Fatalf("another key waits %v", w)
	}
	b.Forget("k")
	if w := b.Wait(now, "k"); w != 0 {
		t.Fatalf("after Forget: wait %v", w)
	}
}

// Failures fade one per Decay, so a key that stops failing is forgotten
// and an occasional typo never adds up.
func TestBackoffFades(t *testing.T) {
	t.Parallel()
	b := NewBackoff(testRule, 100)
	now := time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)
	for range 5 { // 2 past the free ones: the next waits 4 s
		b.Fail(now, "k")
	}
	if w := b.Wait(now, "k"); w != 4*time.Second {
		t.Fatalf("wait %v, want 4s", w)
	}
	now = now.Add(2 * time.Hour) // 3 failures left: 1 s after the last one, long ago
	if w := b.Wait(now, "k"); w != 0 {
		t.Fatalf("after two hours: wait %v", w)
	}
	b.Fail(now, "k") // the 4th: 2 s
	if w := b.Wait(now, "k"); w != 2*time.Second {
		t.Fatalf("wait %v, want 2s", w)
	}
	now = now.Add(4 * time.Hour)
	if w := b.Wait(now, "k"); w != 0 || b.Len() != 0 {
		t.Fatalf("after four quiet hours: wait %v, %d keys tracked", w, b.Len())
	}
	// A typo an hour for a day never makes anyone wait.
	for range 24 {
		if w := b.Wait(now, "typo"); w != 0 {
			t.Fatalf("an hourly typo waits %v", w)
		}
		b.Fail(now, "typo")
		now = now.Add(time.Hour)
	}
}

// The table never holds more than its maximum; keys that make their owner
// wait outlive those that do not.
func TestBackoffBounded(t *testing.T) {
	t.Parallel()
	b := NewBackoff(testRule, 1000)
	now := time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)
	for range 10 {
		b.Fail(now, "attacker")
	}
	for i := range 10_000 {
		b.Fail(now, fmt.Sprint("addr-", i))
		if b.Len() > 1000 {
			t.Fatalf("%d keys tracked, want at most 1000", b.Len())
		}
	}
	if w := b.Wait(now, "attacker"); w != time.Minute {
		t.Fatalf("the key that waits was evicted (wait %v)", w)
	}
}
