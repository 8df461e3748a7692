package ratelimit

import (
	"sync"
	"time"
)

// Keyed counts events per string key (an email, an address) in aligned
// fixed windows. It is for rare events such as sign-ups, where a single
// mutex is plenty; the per-request widget limit uses Memory, failed
// sign-ins use Backoff.
type Keyed struct {
	limit   int
	window  time.Duration
	maxKeys int

	mu     sync.Mutex
	index  int64 // the window the counts belong to
	counts map[string]int
}

// NewKeyed allows limit events per key per window and tracks at most
// maxKeys keys per window; past that, new keys are not counted (fail open,
// as Memory does), so memory stays bounded.
func NewKeyed(limit int, window time.Duration, maxKeys int) *Keyed {
	return &Keyed{limit: limit, window: window, maxKeys: maxKeys, counts: make(map[string]int)}
}

func (k *Keyed) roll(now time.Time) {
	if i := now.UnixNano() / int64(k.window); i != k.index {
		k.index = i
		k.counts = make(map[string]int)
	}
}

// Exhausted reports whether any of the keys has used up its allowance in
// the current window.
func (k *Keyed) Exhausted(now time.Time, keys ...string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.roll(now)
	for _, key := range keys {
		if k.counts[key] >= k.limit {
			return true
		}
	}
	return false
}

// Add counts one event for each key.
func (k *Keyed) Add(now time.Time, keys ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.roll(now)
	for _, key := range keys {
		if _, ok := k.counts[key]; !ok && len(k.counts) >= k.maxKeys {
			continue
		}
		k.counts[key]++
	}
}

// Reset is when the window of now ends and every key starts afresh.
func (k *Keyed) Reset(now time.Time) time.Time {
	return time.Unix(0, (now.UnixNano()/int64(k.window)+1)*int64(k.window))
}
