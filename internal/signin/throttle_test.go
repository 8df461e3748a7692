package signin

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)

// An attacker's hundred failures on the owner's email make the attacker
// wait, not the owner at another address.
func TestAttackerElsewhereCannotLockOwnerOut(t *testing.T) {
	t.Parallel()
	th := New()
	now := t0
	for range 100 {
		if w := th.Wait(now, "owner@example.com", "203.0.113.7"); w > 0 {
			now = now.Add(w) // the attacker waits as told
		}
		th.Failed(now, "owner@example.com", "203.0.113.7")
	}
	if w := th.Wait(now, "owner@example.com", "203.0.113.7"); w != PairRule.Cap {
		t.Fatalf("the attacker waits %v, want the cap %v", w, PairRule.Cap)
	}
	if w := th.Wait(now, "Owner@Example.com", "198.51.100.20"); w != 0 {
		t.Fatalf("the owner at their own address waits %v", w)
	}
}

// Growing waits with a clock the test moves: the first five failures are
// free, then 1 s, 2 s, 4 s … after each failure.
func TestWaitsGrow(t *testing.T) {
	t.Parallel()
	th := New()
	now := t0
	var waits []time.Duration
	for range 10 {
		w := th.Wait(now, "a@example.com", "192.0.2.1")
		waits = append(waits, w)
		now = now.Add(w)
		th.Failed(now, "a@example.com", "192.0.2.1")
	}
	want := fmt.Sprint([]time.Duration{0, 0, 0, 0, 0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second})
	if fmt.Sprint(waits) != want {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	// A success forgets the account's failures at that address.
	th.Succeeded("a@example.com", "192.0.2.1")
	if w := th.Wait(now, "a@example.com", "192.0.2.1"); w != 0 {
		t.Fatalf("after signing in: wait %v", w)
	}
}

// One address trying one password on many emails (spraying) waits after
// twenty failures, for every email; other addresses do not.
func TestSprayingIsThrottled(t *testing.T) {
	t.Parallel()
	th := New()
	for i := range AddressRule.Free {
		email := fmt.Sprintf("user%d@example.com", i)
		if w := th.Wait(t0, email, "192.0.2.9"); w != 0 {
			t.Fatalf("email %d: wait %v within the free ones", i, w)
		}
		th.Failed(t0, email, "192.0.2.9")
	}
	if w := th.Wait(t0, "fresh@example.com", "192.0.2.9"); w != time.Second {
		t.Fatalf("the sprayer's next email waits %v, want 1s", w)
	}
	// Signing in to an account of one's own does not reset the address.
	th.Succeeded("mine@example.com", "192.0.2.9")
	if w := th.Wait(t0, "fresh@example.com", "192.0.2.9"); w != time.Second {
		t.Fatalf("after a success elsewhere: wait %v, want 1s", w)
	}
	if w := th.Wait(t0, "fresh@example.com", "192.0.2.10"); w != 0 {
		t.Fatalf("another address waits %v", w)
	}
}

// An IPv6 client is its /64: hopping between its own addresses does not
// start afresh.
func TestIPv6CountsPerSlash64(t *testing.T) {
	t.Parallel()
	th := New()
	for i := range 5 {
		th.Failed(t0, "a@example.com", fmt.Sprintf("2001:db8:1:2::%x", i+1))
	}
	if w := th.Wait(t0, "a@example.com", "2001:db8:1:2:ffff::1"); w != time.Second {
		t.Fatalf("same /64: wait %v, want 1s", w)
	}
	if w := th.Wait(t0, "a@example.com", "2001:db8:1:3::1"); w != 0 {
		t.Fatalf("another /64: wait %v", w)
	}
	// An IPv4-mapped address is the IPv4 address.
	for range 5 {
		th.Failed(t0, "b@example.com", "::ffff:192.0.2.5")
	}
	if w := th.Wait(t0, "b@example.com", "192.0.2.5"); w != time.Second {
		t.Fatalf("IPv4-mapped: wait %v, want 1s", w)
	}
}
