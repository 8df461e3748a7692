package ratelimit

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// maxShards spreads lock contention; a power of two so a shift picks one.
const maxShards = 64

// key is the 16-byte form of a client address (IPv4 as IPv4-mapped). It is
// used instead of netip.Addr because it makes a map slot 20 bytes, not 32,
// and drops IPv6 zones, which should not split a client's count.
type key [16]byte

// Memory is an in-process Limiter with aligned fixed windows.
//
// Memory is bounded in two ways. Each shard remembers only the window it
// last saw; the first request of a newer window replaces its map, so
// entries of past windows are dropped. And each shard holds at most its
// share of the maxTracked cap. When a shard is full, a request from a key
// it does not already track is allowed WITHOUT being counted (its
// Decision says limit-1 remaining, as for a first request) and
// Overflows is incremented: such a client is unlimited until the window
// ends, and is counted normally from its first request in a window where
// the shard has room. Failing open was chosen because failing closed
// would let anyone who can present many addresses lock every new visitor
// out; the overflow counter is there to alert on it.
type Memory struct {
	limit     uint32
	window    int64 // nanoseconds
	now       func() time.Time
	seed      uint64
	shift     uint // 64 - log2(len(shards))
	v6Mask    [2]uint64
	overflows atomic.Uint64
	shards    []shard
}

type shard struct {
	mu     sync.Mutex
	win    int64
	max    int
	counts map[key]uint32
	_      [64]byte // keep neighbouring shards' locks off one cache line
}

var _ Limiter = (*Memory)(nil)

// NewMemory returns a limiter allowing limit requests per client per
// window. limit <= 0 disables it: every request is allowed and nothing is
// stored. window must be positive when limit is.
func NewMemory(limit int, window time.Duration, opts ...Option) *Memory {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	m := &Memory{now: cfg.now}
	if limit <= 0 {
		return m
	}
	if window <= 0 {
		panic(fmt.Sprintf("ratelimit: window must be positive, got %v", window))
	}
	m.limit = uint32(min(limit, math.MaxUint32))
	m.window = int64(window)
	m.seed = rand.Uint64()
	m.v6Mask = prefixMask(cfg.v6Bits)

	// Fewer shards than the cap would leave some with room for nobody.
	n := maxShards
	for n > 1 && n > cfg.maxTracked {
		n /= 2
	}
	m.shift = uint(64 - bits.TrailingZeros(uint(n)))
	m.shards = make([]shard, n)
	for i := range m.shards {
		s := &m.shards[i]
		// Spread the remainder so the shares add up to the cap exactly.
		s.max = cfg.maxTracked / n
		if i < cfg.maxTracked%n {
			s.max++
		}
		s.win = math.MinInt64
		s.counts = make(map[key]uint32)
	}
	return m
}

// Allow implements Limiter using the configured clock.
func (m *Memory) Allow(_ context.Context, ip netip.Addr) Decision {
	if m.limit == 0 {
		return unlimited
	}
	return m.AllowAt(ip, m.now())
}

// AllowAt counts one request from ip at time now. The zero Addr is a
// valid key: callers that cannot tell who the client is share one bucket.
func (m *Memory) AllowAt(ip netip.Addr, now time.Time) Decision {
	if m.limit == 0 {
		return unlimited
	}
	k := m.keyOf(ip)
	win, retry := windowIndex(now, m.window)
	s := m.shardOf(k)

	s.mu.Lock()
	// Only move forward: if the clock steps back, keep counting in the
	// newer window rather than handing out a fresh allowance.
	if win > s.win {
		s.win = win
		if len(s.counts) > 0 {
			// A new map, not clear(), so a burst's buckets are freed.
			s.counts = make(map[key]uint32)
		}
	}
	n, tracked := s.counts[k]
	if !tracked && len(s.counts) >= s.max {
		s.mu.Unlock()
		m.overflows.Add(1)
		return Decision{Allowed: true, Remaining: int(m.limit) - 1}
	}
	if n >= m.limit {
		s.mu.Unlock()
		return Decision{RetryAfter: retry}
	}
	n++
	s.counts[k] = n
	s.mu.Unlock()
	return Decision{Allowed: true, Remaining: int(m.limit - n)}
}

// Overflows reports how many requests were let through uncounted because
// the tracking cap was reached.
func (m *Memory) Overflows() uint64 { return m.overflows.Load() }

// Tracked reports how many keys are held in memory, including those of a
// past window that a shard has not dropped yet. It locks every shard, so it
// is meant for metrics scrapes, not the request path.
func (m *Memory) Tracked() int {
	total := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		total += len(s.counts)
		s.mu.Unlock()
	}
	return total
}

func (m *Memory) keyOf(ip netip.Addr) key {
	ip = ip.Unmap() // ::ffff:1.2.3.4 and 1.2.3.4 are one client
	k := key(ip.As16())
	if ip.Is6() {
		hi := binary.BigEndian.Uint64(k[:8]) & m.v6Mask[0]
		lo := binary.BigEndian.Uint64(k[8:]) & m.v6Mask[1]
		binary.BigEndian.PutUint64(k[:8], hi)
		binary.BigEndian.PutUint64(k[8:], lo)
	}
	return k
}

// shardOf mixes all 128 bits with a per-process seed so that clients
// cannot aim many addresses at one shard, then uses the top bits, which
// a multiply mixes best.
func (m *Memory) shardOf(k key) *shard {
	lo := binary.LittleEndian.Uint64(k[8:])
	hi := binary.LittleEndian.Uint64(k[:8])
	h := (lo ^ m.seed) * 0x9e3779b97f4a7c15
	h = (h ^ hi) * 0xbf58476d1ce4e5b9
	return &m.shards[h>>m.shift]
}

// prefixMask returns the big-endian halves of a /bits IPv6 mask.
func prefixMask(bits int) [2]uint64 {
	var m [2]uint64
	for i := range m {
		b := min(max(bits-64*i, 0), 64)
		if b > 0 {
			m[i] = ^uint64(0) << (64 - b)
		}
	}
	return m
}
