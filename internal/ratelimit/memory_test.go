package ratelimit

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a settable test clock; atomic so -race accepts it under load.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// base is 10s into an aligned minute, so 50s remain in its window.
var base = time.Unix(1_700_000_050, 0)

func TestAllowSequence(t *testing.T) {
	clk := newClock(base)
	m := NewMemory(3, time.Minute, WithClock(clk.Now))
	ip := netip.MustParseAddr("192.0.2.1")
	ctx := context.Background()

	steps := []struct {
		name    string
		advance time.Duration
		want    Decision
	}{
		{"first", 0, Decision{Allowed: true, Remaining: 2}},
		{"second", time.Second, Decision{Allowed: true, Remaining: 1}},
		{"last allowed", time.Second, Decision{Allowed: true, Remaining: 0}},
		{"over limit", time.Second, Decision{RetryAfter: 47 * time.Second}},
		{"still over", 46*time.Second + 999*time.Millisecond, Decision{RetryAfter: time.Millisecond}},
		{"next window", time.Millisecond, Decision{Allowed: true, Remaining: 2}},
	}
	for _, s := range steps {
		clk.Advance(s.advance)
		if got := m.Allow(ctx, ip); got != s.want {
			t.Fatalf("%s: got %+v, want %+v", s.name, got, s.want)
		}
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		name   string
		opts   []Option
		a, b   string
		shared bool
	}{
		{"ipv4-mapped counts with ipv4", nil, "::ffff:198.51.100.7", "198.51.100.7", true},
		{"distinct ipv4", nil, "198.51.100.7", "198.51.100.8", false},
		{"same /64 by default", nil, "2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true},
		{"different /64", nil, "2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{"full addresses with /128", []Option{WithIPv6Prefix(128)}, "2001:db8::1", "2001:db8::2", false},
		{"zone ignored", []Option{WithIPv6Prefix(128)}, "fe80::1%eth0", "fe80::1%eth1", true},
		{"/48 groups subnets", []Option{WithIPv6Prefix(48)}, "2001:db8:1:2::1", "2001:db8:1:3::1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory(1, time.Minute, tt.opts...)
			if d := m.AllowAt(netip.MustParseAddr(tt.a), base); !d.Allowed {
				t.Fatalf("first request refused: %+v", d)
			}
			d := m.AllowAt(netip.MustParseAddr(tt.b), base)
			if shared := !d.Allowed; shared != tt.shared {
				t.Fatalf("shared bucket = %v, want %v", shared, tt.shared)
			}
		})
	}
}

func TestDisabled(t *testing.T) {
	for _, limit := range []int{0, -5} {
		m := NewMemory(limit, 0)
		for range 100 {
			if d := m.Allow(context.Background(), netip.MustParseAddr("192.0.2.1")); d != unlimited {
				t.Fatalf("limit %d: got %+v, want %+v", limit, d, unlimited)
			}
		}
		if m.shards != nil || m.Tracked() != 0 {
			t.Fatalf("limit %d: disabled limiter holds state", limit)
		}
	}
}

func TestWindowIndex(t *testing.T) {
	tests := []struct {
		now       time.Time
		wantIndex int64
		wantRetry time.Duration
	}{
		{time.Unix(0, 0), 0, time.Minute},
		{time.Unix(59, 0), 0, time.Second},
		{time.Unix(60, 0), 1, time.Minute},
		{time.Unix(-1, 0), -1, time.Second}, // floor, not truncation
		{time.Unix(-60, 0), -1, time.Minute},
	}
	for _, tt := range tests {
		idx, retry := windowIndex(tt.now, int64(time.Minute))
		if idx != tt.wantIndex || retry != tt.wantRetry {
			t.Errorf("%v: got (%d, %v), want (%d, %v)", tt.now.Unix(), idx, retry, tt.wantIndex, tt.wantRetry)
		}
	}
}

func TestClockStepBackKeepsCount(t *testing.T) {
	m := NewMemory(1, time.Minute)
	ip := netip.MustParseAddr("192.0.2.1")
	m.AllowAt(ip, base.Add(time.Minute))
	if d := m.AllowAt(ip, base); d.Allowed {
		t.Fatalf("earlier window reset the count: %+v", d)
	}
}

func TestConcurrentExact(t *testing.T) {
	const limit, goroutines, perG = 30, 200, 5
	m := NewMemory(limit, time.Minute)
	ip := netip.MustParseAddr("203.0.113.9")
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range perG {
				if m.AllowAt(ip, base).Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != limit {
		t.Fatalf("allowed %d, want exactly %d", got, limit)
	}
}

// ipv4 returns the i-th address of 10.0.0.0/8.
func ipv4(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
}

func TestCapAndReset(t *testing.T) {
	const maxTracked, distinct = 1000, 5000
	clk := newClock(base)
	m := NewMemory(2, time.Minute, WithClock(clk.Now), WithMaxTracked(maxTracked))
	ctx := context.Background()

	sumMax := 0
	for i := range m.shards {
		sumMax += m.shards[i].max
	}
	if sumMax != maxTracked {
		t.Fatalf("shard shares add up to %d, want %d", sumMax, maxTracked)
	}

	// Two windows of fresh IPs: without the reset the second would find
	// every shard still full and overflow on all of them.
	for w := range 2 {
		before := m.Overflows()
		for i := range distinct {
			if d := m.Allow(ctx, ipv4(w*distinct+i)); !d.Allowed {
				t.Fatalf("window %d ip %d: fresh IP refused", w, i)
			}
			if n := m.Tracked(); n > maxTracked {
				t.Fatalf("window %d ip %d: tracking %d keys, cap %d", w, i, n, maxTracked)
			}
		}
		// 5000 IPs over 64 shards of ~16 fill every shard.
		if n := m.Tracked(); n != maxTracked {
			t.Fatalf("window %d: tracking %d keys, want %d", w, n, maxTracked)
		}
		if got := m.Overflows() - before; got != distinct-maxTracked {
			t.Fatalf("window %d: %d overflows, want %d", w, got, distinct-maxTracked)
		}
		clk.Advance(time.Minute)
	}
}

func TestSmallCapShards(t *testing.T) {
	for _, maxTracked := range []int{1, 3, 63, 64, 65} {
		m := NewMemory(1, time.Minute, WithMaxTracked(maxTracked))
		sum := 0
		for i := range m.shards {
			if m.shards[i].max < 1 {
				t.Fatalf("cap %d: shard %d has no room", maxTracked, i)
			}
			sum += m.shards[i].max
		}
		if sum != maxTracked {
			t.Fatalf("cap %d: shares add up to %d", maxTracked, sum)
		}
		for i := range 1000 {
			m.AllowAt(ipv4(i), base)
		}
		if n := m.Tracked(); n != maxTracked {
			t.Fatalf("cap %d: tracking %d", maxTracked, n)
		}
	}
}

func TestAllowDoesNotAllocate(t *testing.T) {
	const many = 4096
	m := NewMemory(30, time.Minute)
	ctx := context.Background()
	v6 := netip.MustParseAddr("2001:db8::1")
	for i := range many {
		m.AllowAt(ipv4(i), base)
	}
	tests := []struct {
		name string
		fn   func(i int)
	}{
		{"ipv4 fixed time", func(int) { m.AllowAt(ipv4(1), base) }},
		{"ipv6 fixed time", func(int) { m.AllowAt(v6, base) }},
		{"many known ips", func(i int) { m.AllowAt(ipv4(i%many), base) }},
		{"interface with real clock", func(int) { m.Allow(ctx, v6) }},
	}
	for _, tt := range tests {
		i := 0
		if a := testing.AllocsPerRun(1000, func() { tt.fn(i); i++ }); a != 0 {
			t.Errorf("%s: %v allocs per Allow, want 0", tt.name, a)
		}
	}
}
