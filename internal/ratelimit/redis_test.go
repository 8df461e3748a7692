package ratelimit

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/testsvc"

	"github.com/redis/go-redis/v9"
)

// testRedis connects to the Redis named by PARLEY_TEST_REDIS_URL (default
// the local one, DB 0) and returns it with a key prefix unique to the test,
// whose keys are deleted when the test ends. Without a Redis the test is
// skipped, unless PARLEY_TEST_REDIS=required, as in CI, where a skip would
// hide that nothing was tested.
func testRedis(tb testing.TB) (*redis.Client, string) {
	tb.Helper()
	c := testsvc.Redis(tb)
	prefix := "parley-test:" + rand.Text() + ":rl:"
	tb.Cleanup(func() { // before testsvc's Close: cleanups run last first
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var keys []string
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			tb.Errorf("listing test keys: %v", err)
		}
		if len(keys) > 0 {
			if err := c.Del(ctx, keys...).Err(); err != nil {
				tb.Errorf("deleting test keys: %v", err)
			}
		}
	})
	return c, prefix
}

// unreachable is a client for a port nobody listens on.
func unreachable(t *testing.T) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisSequence(t *testing.T) {
	c, prefix := testRedis(t)
	clk := newClock(base)
	r := NewRedis(c, 3, time.Minute, WithRedisKeyPrefix(prefix), WithRedisClock(clk.Now))
	ctx := context.Background()
	ip := netip.MustParseAddr("192.0.2.1")

	for i := range 3 {
		d := r.Allow(ctx, ip)
		if !d.Allowed || d.Remaining != 2-i || d.RetryAfter != 0 {
			t.Fatalf("request %d: %+v", i+1, d)
		}
	}
	clk.Advance(5 * time.Second)
	d := r.Allow(ctx, ip)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("fourth request: %+v", d)
	}
	// base is 10 s into its minute and 5 s have passed.
	if d.RetryAfter != 45*time.Second {
		t.Fatalf("RetryAfter = %v, want 45s", d.RetryAfter)
	}
	if d := r.Allow(ctx, netip.MustParseAddr("192.0.2.2")); !d.Allowed {
		t.Fatalf("another address was refused: %+v", d)
	}

	clk.Advance(45 * time.Second) // the next window starts
	if d := r.Allow(ctx, ip); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("new window: %+v", d)
	}
	if r.Failures() != 0 {
		t.Fatalf("Failures = %d against a working Redis", r.Failures())
	}
}

// With the real clock, whatever the window, a refusal says to wait for at
// most one window.
func TestRedisRetryAfterWithinWindow(t *testing.T) {
	c, prefix := testRedis(t)
	const window = 2 * time.Second
	r := NewRedis(c, 2, window, WithRedisKeyPrefix(prefix))
	// A window may end between the calls and reset the count; then try
	// again with a fresh address.
	for i := range 5 {
		ip := ipv4(i)
		r.Allow(context.Background(), ip)
		r.Allow(context.Background(), ip)
		d := r.Allow(context.Background(), ip)
		if d.Allowed {
			continue
		}
		if d.RetryAfter <= 0 || d.RetryAfter > window {
			t.Fatalf("RetryAfter = %v, want in (0, %v]", d.RetryAfter, window)
		}
		return
	}
	t.Fatal("the third request was never refused")
}

func TestRedisKeyAndExpiry(t *testing.T) {
	c, prefix := testRedis(t)
	clk := newClock(base)
	r := NewRedis(c, 5, time.Minute, WithRedisKeyPrefix(prefix), WithRedisClock(clk.Now))
	ctx := context.Background()

	r.Allow(ctx, netip.MustParseAddr("::ffff:198.51.100.7"))
	r.Allow(ctx, netip.MustParseAddr("198.51.100.7"))
	r.Allow(ctx, netip.MustParseAddr("2001:db8:1:2:aaaa::1"))
	r.Allow(ctx, netip.MustParseAddr("2001:db8:1:2:bbbb::2%eth0"))
	r.Allow(ctx, netip.MustParseAddr("2001:db8:1:3::1"))

	index, _ := windowIndex(base, int64(time.Minute))
	win := prefix + strconv.FormatInt(index, 10) + ":"
	want := map[string]int64{
		win + "198.51.100.7":   2, // IPv4-mapped and plain IPv4 are one client
		win + "2001:db8:1:2::": 2, // one /64, zone ignored
		win + "2001:db8:1:3::": 1,
	}
	keys, err := c.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(want) {
		t.Fatalf("keys %q, want those of %v", keys, want)
	}
	for k, n := range want {
		got, err := c.Get(ctx, k).Int64()
		if err != nil || got != n {
			t.Errorf("%s = %d (%v), want %d", k, got, err, n)
		}
		ttl, err := c.PTTL(ctx, k).Result()
		if err != nil || ttl <= time.Minute || ttl > time.Minute+redisExpiryMargin {
			t.Errorf("%s expires in %v (%v), want within a window plus the margin", k, ttl, err)
		}
	}

	// With /128 keying, addresses in one /64 are different clients.
	r128 := NewRedis(c, 5, time.Minute, WithRedisKeyPrefix(prefix+"128:"), WithRedisClock(clk.Now), WithRedisIPv6Prefix(128))
	r128.Allow(ctx, netip.MustParseAddr("2001:db8:1:2::1"))
	r128.Allow(ctx, netip.MustParseAddr("2001:db8:1:2::2"))
	if n, _ := c.Exists(ctx, prefix+"128:"+strconv.FormatInt(index, 10)+":2001:db8:1:2::2").Result(); n != 1 {
		t.Fatalf("/128 keying did not count the full address")
	}
}

// Two instances (separate clients, as separate processes would have) share
// one count.
func TestRedisSharedAcrossInstances(t *testing.T) {
	c, prefix := testRedis(t)
	c2 := redis.NewClient(c.Options())
	defer c2.Close()
	clk := newClock(base)
	const limit = 30
	a := NewRedis(c, limit, time.Minute, WithRedisKeyPrefix(prefix), WithRedisClock(clk.Now))
	b := NewRedis(c2, limit, time.Minute, WithRedisKeyPrefix(prefix), WithRedisClock(clk.Now))
	ctx := context.Background()
	ip := netip.MustParseAddr("203.0.113.5")
	for i := range limit {
		l := a
		if i%2 == 1 {
			l = b
		}
		if d := l.Allow(ctx, ip); !d.Allowed {
			t.Fatalf("request %d refused: %+v", i+1, d)
		}
	}
	if d := a.Allow(ctx, ip); d.Allowed {
		t.Fatalf("request %d allowed on a: %+v", limit+1, d)
	}
	if d := b.Allow(ctx, ip); d.Allowed {
		t.Fatalf("request %d allowed on b: %+v", limit+2, d)
	}
}

func TestRedisConcurrentExact(t *testing.T) {
	c, prefix := testRedis(t)
	const limit, goroutines = 50, 200
	// A generous timeout: 200 calls at once queue for the client's pool,
	// and a timeout would fail open and spoil the count.
	clk := newClock(base)
	r := NewRedis(c, limit, time.Minute, WithRedisKeyPrefix(prefix), WithRedisClock(clk.Now),
		WithRedisTimeout(10*time.Second))
	ip := netip.MustParseAddr("203.0.113.9")
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			if r.Allow(context.Background(), ip).Allowed {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != limit || r.Failures() != 0 {
		t.Fatalf("allowed %d with %d failures, want exactly %d and none", got, r.Failures(), limit)
	}
}

func TestRedisDisabled(t *testing.T) {
	r := NewRedis(nil, 0, 0)
	if d := r.Allow(context.Background(), netip.MustParseAddr("192.0.2.1")); d != unlimited {
		t.Fatalf("disabled limiter: %+v", d)
	}
}

// logCounter counts the records a slog.Logger emits.
func logCounter() (*slog.Logger, *bytes.Buffer, *sync.Mutex) {
	var mu sync.Mutex
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil)), &buf, &mu
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestRedisFailOpen(t *testing.T) {
	log, buf, mu := logCounter()
	clk := newClock(base)
	r := NewRedis(unreachable(t), 1, time.Minute, WithRedisLogger(log), WithRedisClock(clk.Now))
	ip := netip.MustParseAddr("192.0.2.1")
	for i := range 5 {
		d := r.Allow(context.Background(), ip)
		if !d.Allowed || d.Remaining != -1 {
			t.Fatalf("request %d with Redis down: %+v", i+1, d)
		}
	}
	if r.Failures() != 5 {
		t.Fatalf("Failures = %d, want 5", r.Failures())
	}
	lines := func() int {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Count(buf.Bytes(), []byte("\n"))
	}
	if n := lines(); n != 1 {
		t.Fatalf("%d log lines for 5 failures within 10s, want 1:\n%s", n, buf.String())
	}
	clk.Advance(redisLogEvery)
	r.Allow(context.Background(), ip)
	if n := lines(); n != 2 {
		t.Fatalf("%d log lines after 10s more, want 2:\n%s", n, buf.String())
	}
}

// A caller that gives up is not a Redis failure.
func TestRedisCallerCancelNotCounted(t *testing.T) {
	r := NewRedis(unreachable(t), 1, time.Minute, WithRedisLogger(slog.New(slog.DiscardHandler)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := r.Allow(ctx, netip.MustParseAddr("192.0.2.1")); !d.Allowed {
		t.Fatalf("cancelled request: %+v", d)
	}
	if r.Failures() != 0 {
		t.Fatalf("Failures = %d for a cancelled caller", r.Failures())
	}
}

// A Redis that accepts connections but never answers must not hold
// requests for the client's own (multi-second) read timeout.
func TestRedisHungServerFailsOpenQuickly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	c := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), ReadTimeout: 30 * time.Second})
	defer c.Close()
	r := NewRedis(c, 1, time.Minute, WithRedisLogger(slog.New(slog.DiscardHandler)))

	start := time.Now()
	d := r.Allow(context.Background(), netip.MustParseAddr("192.0.2.1"))
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("Allow took %v against a hung Redis", elapsed)
	}
	if !d.Allowed || r.Failures() != 1 {
		t.Fatalf("hung Redis: %+v, Failures = %d", d, r.Failures())
	}
}

// BenchmarkRedisAllow is informational: it mostly measures the round trip
// to the test Redis.
func BenchmarkRedisAllow(b *testing.B) {
	c, prefix := testRedis(b)
	ctx := context.Background()
	b.Run("single", func(b *testing.B) {
		r := NewRedis(c, 1<<30, time.Minute, WithRedisKeyPrefix(prefix), WithRedisTimeout(time.Second))
		ip := ipv4(1)
		b.ReportAllocs()
		for b.Loop() {
			r.Allow(ctx, ip)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		r := NewRedis(c, 1<<30, time.Minute, WithRedisKeyPrefix(prefix), WithRedisTimeout(time.Second))
		b.ReportAllocs()
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				// A bounded set of clients keeps the key count small.
				r.Allow(ctx, ipv4(int(next.Add(1)%4096)))
			}
		})
		if r.Failures() > 0 {
			b.Errorf("%d failures", r.Failures())
		}
	})
}
