package ratelimit

import (
	"sync"
	"time"
)

// Backoff makes a key wait longer after each failure past the first few:
// once a key has Free failures, its next attempt must wait Base after the
// last failure, then 2·Base, 4·Base … up to Cap. Failures fade, one per
// Decay without a new one, so a key that stops failing is forgotten.
// It is for failed sign-ins, where waiting (not a lock-out) is the answer;
// callers pass the time, so tests use a fixed clock.
type Backoff struct {
	BackoffRule
	maxKeys int

	mu   sync.Mutex
	keys map[string]backoffEntry
}

// BackoffRule is a Backoff's numbers.
type BackoffRule struct {
	Free  int           // failures with no wait
	Base  time.Duration // the first wait
	Cap   time.Duration // the longest wait
	Decay time.Duration // one failure is forgotten per Decay without a new one
}

type backoffEntry struct {
	failures int
	last     time.Time
}

// NewBackoff tracks at most maxKeys keys, so memory stays bounded however
// many addresses an attacker has (see evict).
func NewBackoff(rule BackoffRule, maxKeys int) *Backoff {
	if rule.Decay <= 0 || rule.Base <= 0 || rule.Cap < rule.Base {
		panic("ratelimit: a Backoff needs Decay > 0 and 0 < Base ≤ Cap")
	}
	return &Backoff{BackoffRule: rule, maxKeys: max(maxKeys, 1), keys: make(map[string]backoffEntry)}
}

// failures is e's count at now, after the fading.
func (b *Backoff) failures(e backoffEntry, now time.Time) int {
	faded := 0
	if elapsed := now.Sub(e.last); elapsed > 0 {
		faded = int(min(elapsed/b.Decay, 1<<30))
	}
	return max(e.failures-faded, 0)
}

// delay is the wait after n failures.
func (b *Backoff) delay(n int) time.Duration {
	if n < b.Free {
		return 0
	}
	d := b.Base
	for i := b.Free; i < n && d < b.Cap; i++ {
		d *= 2
	}
	return min(d, b.Cap)
}

// Wait reports how long key must still wait before its next attempt; 0
// means now.
func (b *Backoff) Wait(now time.Time, key string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.keys[key]
	if !ok {
		return 0
	}
	n := b.failures(e, now)
	if n == 0 {
		delete(b.keys, key)
		return 0
	}
	return max(e.last.Add(b.delay(n)).Sub(now), 0)
}

// Fail counts a failure of key at now.
func (b *Backoff) Fail(now time.Time, key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.keys[key]
	if !ok && len(b.keys) >= b.maxKeys {
		b.evict(now)
	}
	b.keys[key] = backoffEntry{failures: b.failures(e, now) + 1, last: now}
}

// Forget drops key's failures.
func (b *Backoff) Forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.keys, key)
}

// Len is how many keys are tracked.
func (b *Backoff) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.keys)
}

// evict makes room when the table is full: first the keys whose failures
// have faded, then those that do not make anyone wait yet (forgetting them
// gives back at most Free attempts), then any, down to nine tenths of the
// maximum so that the sweep runs once per many new keys. Keys that make
// their owner wait are the last to go.
func (b *Backoff) evict(now time.Time) {
	target := b.maxKeys * 9 / 10
	for key, e := range b.keys {
		if b.failures(e, now) == 0 {
			delete(b.keys, key)
		}
	}
	for key, e := range b.keys {
		if len(b.keys) <= target {
			return
		}
		if b.failures(e, now) < b.Free {
			delete(b.keys, key)
		}
	}
	for key := range b.keys {
		if len(b.keys) <= target {
			return
		}
		delete(b.keys, key)
	}
}
