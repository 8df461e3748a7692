package notify

import (
	"sync"
	"testing"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestPublishWakesOnlyThatConversation(t *testing.T) {
	h := NewHub()
	a1, ca1 := h.Subscribe("a")
	a2, ca2 := h.Subscribe("a")
	b, cb := h.Subscribe("b")
	defer ca1()
	defer ca2()
	defer cb()

	h.Publish("a")
	if !closed(a1) || !closed(a2) {
		t.Fatal("waiters on a were not woken")
	}
	if closed(b) {
		t.Fatal("waiter on b was woken by a publish to a")
	}
	// A new subscription after the publish waits for the next one.
	a3, ca3 := h.Subscribe("a")
	defer ca3()
	if closed(a3) {
		t.Fatal("a fresh subscription is already closed")
	}
}

func TestCancelFreesEntries(t *testing.T) {
	h := NewHub()
	_, c1 := h.Subscribe("a")
	_, c2 := h.Subscribe("a")
	c1()
	c1() // idempotent: must not drop c2's reference
	if h.Len() != 1 {
		t.Fatalf("Len = %d after one of two cancels, want 1", h.Len())
	}
	c2()
	if h.Len() != 0 {
		t.Fatalf("Len = %d after all cancels, want 0", h.Len())
	}
	h.Publish("nobody") // no waiters: no panic, nothing kept
	if h.Len() != 0 {
		t.Fatal("publish without waiters left an entry")
	}
}

func TestConcurrentUse(t *testing.T) {
	h := NewHub()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			ch, cancel := h.Subscribe("c")
			defer cancel()
			if i%2 == 0 {
				h.Publish("c")
			}
			select {
			case <-ch:
			default:
			}
		})
	}
	wg.Wait()
	if h.Len() != 0 {
		t.Fatalf("Len = %d after everyone left, want 0", h.Len())
	}
}
