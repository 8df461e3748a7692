package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Counter counts events per string key in aligned fixed windows, with the
// limit given per call: the per-agent limits on new conversations
// (package initlimit), whose limits each agent's owner sets. Memory-backed
// (MemoryCounter) on one instance, Redis-backed (RedisCounter) when
// several share the counts.
type Counter interface {
	// Take counts one event against every ask if each key is still under
	// its limit in the current window, and nothing at all otherwise, in
	// one atomic step: of many concurrent Takes exactly the allowed number
	// succeed, and a refused Take uses up nothing. An ask with a limit of
	// 0 or less is not counted or checked.
	Take(ctx context.Context, asks ...Ask) Taken
}

// Ask is one key and its limit per window.
type Ask struct {
	Key   string
	Limit int
}

// Taken is the outcome of Take.
type Taken struct {
	Allowed bool
	// Refused is the index of the ask whose limit was reached (the first
	// such, in order), -1 when allowed.
	Refused int
	// RetryAfter, when refused, is the time until the window ends.
	RetryAfter time.Duration
}

var allowedTaken = Taken{Allowed: true, Refused: -1}

// MemoryCounter is an in-process Counter. It remembers only the current
// window, as hashed keys (8 bytes each, not the key strings), at most max
// of them: past that, asks for keys it does not track are allowed without
// being counted (fail open, like Memory, so that someone presenting many
// keys cannot lock everyone else out), and Overflows counts them.
type MemoryCounter struct {
	window int64 // nanoseconds
	max    int
	now    func() time.Time
	seed   maphash.Seed

	mu        sync.Mutex
	win       int64
	counts    map[uint64]uint32
	overflows atomic.Uint64
}

var _ Counter = (*MemoryCounter)(nil)

// DefaultMaxCounted bounds the keys a MemoryCounter tracks per window: at
// about 20 bytes a key, some 20 MiB at worst.
const DefaultMaxCounted = 1 << 20

// NewMemoryCounter counts in windows of the given length (positive), with
// the clock now (time.Now when nil) and at most maxKeys keys per window
// (DefaultMaxCounted when 0 or less).
func NewMemoryCounter(window time.Duration, maxKeys int, now func() time.Time) *MemoryCounter {
	if window <= 0 {
		panic("ratelimit: window must be positive")
	}
	if maxKeys <= 0 {
		maxKeys = DefaultMaxCounted
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryCounter{window: int64(window), max: maxKeys, now: now, seed: maphash.MakeSeed(),
		win: math.MinInt64, counts: map[uint64]uint32{}}
}

// Take implements Counter.
func (m *MemoryCounter) Take(_ context.Context, asks ...Ask) Taken {
	win, retry := windowIndex(m.now(), m.window)
	var hashes [4]uint64
	hs := hashes[:0]
	for _, a := range asks {
		hs = append(hs, maphash.String(m.seed, a.Key))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Only forward, as Memory: a clock stepping back keeps the newer window.
	if win > m.win {
		m.win = win
		if len(m.counts) > 0 {
			m.counts = map[uint64]uint32{}
		}
	}
	for i, a := range asks {
		if a.Limit > 0 && m.counts[hs[i]] >= uint32(min(a.Limit, math.MaxUint32)) {
			return Taken{Refused: i, RetryAfter: retry}
		}
	}
	for i, a := range asks {
		if a.Limit <= 0 {
			continue
		}
		n, ok := m.counts[hs[i]]
		if !ok && len(m.counts) >= m.max {
			m.overflows.Add(1)
			continue
		}
		m.counts[hs[i]] = n + 1
	}
	return allowedTaken
}

// Overflows reports how many asks were let through uncounted because the
// table was full.
func (m *MemoryCounter) Overflows() uint64 { return m.overflows.Load() }

// Tracked reports how many keys the current window holds.
func (m *MemoryCounter) Tracked() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.counts)
}
