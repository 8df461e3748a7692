package ratelimit

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hourBase is 10 minutes into an aligned hour: 50 minutes remain.
var hourBase = time.Unix(1_699_999_200+600, 0)

// counterContract is what every Counter does. newPair returns two
// counters sharing one store of counts on the clock: two instances, for
// Redis; one counter twice, for memory, which is shared only within its
// process.
func counterContract(t *testing.T, newPair func(now func() time.Time) (Counter, Counter)) {
	ctx := context.Background()
	t.Run("sequence", func(t *testing.T) {
		clk := newClock(hourBase)
		c, _ := newPair(clk.Now)
		ip, visitor := Ask{Key: "{ag}:ip:1", Limit: 3}, Ask{Key: "{ag}:v:1", Limit: 2}
		for i := range 2 {
			if got := c.Take(ctx, ip, visitor); !got.Allowed || got.Refused != -1 {
				t.Fatalf("take %d: %+v", i+1, got)
			}
		}
		// The visitor is at its limit: refused, and the address's count
		// is not used up by the refusal.
		got := c.Take(ctx, ip, visitor)
		if got.Allowed || got.Refused != 1 || got.RetryAfter != 50*time.Minute {
			t.Fatalf("third take for the visitor: %+v, want refused by ask 1, retry after 50m", got)
		}
		if got := c.Take(ctx, ip, Ask{Key: "{ag}:v:2", Limit: 2}); !got.Allowed {
			t.Fatalf("another visitor from the address: %+v", got)
		}
		if got := c.Take(ctx, ip, Ask{Key: "{ag}:v:3", Limit: 2}); got.Allowed || got.Refused != 0 {
			t.Fatalf("the address's fourth: %+v, want refused by ask 0", got)
		}
		// A limit of 0 is off.
		if got := c.Take(ctx, Ask{Key: "{ag}:ip:1", Limit: 0}); !got.Allowed {
			t.Fatalf("limit 0: %+v", got)
		}
		// The next window starts afresh.
		clk.Advance(50 * time.Minute)
		if got := c.Take(ctx, ip, visitor); !got.Allowed {
			t.Fatalf("next window: %+v", got)
		}
	})
	t.Run("exact under concurrency", func(t *testing.T) {
		clk := newClock(hourBase)
		c1, c2 := newPair(clk.Now)
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Go(func() {
				c := c1
				if i%2 == 1 {
					c = c2
				}
				if c.Take(ctx, Ask{Key: "{ag}:ip:9", Limit: 25}, Ask{Key: "{ag}:v:" + strconv.Itoa(i), Limit: 5}).Allowed {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if allowed.Load() != 25 {
			t.Fatalf("%d of 60 concurrent takes allowed, want exactly 25", allowed.Load())
		}
	})
}

func TestMemoryCounter(t *testing.T) {
	t.Parallel()
	// Two "instances" of a memory counter are one counter: it is shared
	// only within the process.
	counterContract(t, func(now func() time.Time) (Counter, Counter) {
		c := NewMemoryCounter(time.Hour, 0, now)
		return c, c
	})
}

// Past its cap a MemoryCounter lets new keys through uncounted and says
// so; keys it tracks are still limited.
func TestMemoryCounterBounded(t *testing.T) {
	t.Parallel()
	clk := newClock(hourBase)
	c := NewMemoryCounter(time.Hour, 2, clk.Now)
	ctx := context.Background()
	for _, k := range []string{"a", "b"} {
		c.Take(ctx, Ask{Key: k, Limit: 1})
	}
	for range 3 {
		if !c.Take(ctx, Ask{Key: "c", Limit: 1}).Allowed {
			t.Fatal("an untracked key over the cap was refused")
		}
	}
	if c.Overflows() != 3 || c.Tracked() != 2 {
		t.Fatalf("overflows %d, tracked %d", c.Overflows(), c.Tracked())
	}
	if c.Take(ctx, Ask{Key: "a", Limit: 1}).Allowed {
		t.Fatal("a tracked key went over its limit")
	}
}

// Two instances on one Redis share the counts, exactly.
func TestRedisCounter(t *testing.T) {
	t.Parallel()
	c, prefix := testRedis(t)
	counterContract(t, func(now func() time.Time) (Counter, Counter) {
		// A prefix per pair, so the subtests do not share counts. The
		// contract is about counting: a call slower than the 50 ms default
		// (60 at once under -race on a busy machine) would fail open and
		// count nothing, which is TestRedisCounterFailsOpen's to show.
		p := prefix + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
		return NewRedisCounter(c, time.Hour, WithRedisKeyPrefix(p), WithRedisClock(now), WithRedisTimeout(10*time.Second)),
			NewRedisCounter(c, time.Hour, WithRedisKeyPrefix(p), WithRedisClock(now), WithRedisTimeout(10*time.Second))
	})
}

// Without Redis the counter fails open and counts the failures.
func TestRedisCounterFailsOpen(t *testing.T) {
	t.Parallel()
	r := NewRedisCounter(unreachable(t), time.Hour, WithRedisTimeout(20*time.Millisecond), WithRedisLogger(slog.New(slog.DiscardHandler)))
	for range 3 {
		if !r.Take(context.Background(), Ask{Key: "k", Limit: 1}).Allowed {
			t.Fatal("refused while Redis is unreachable")
		}
	}
	if r.Failures() != 3 {
		t.Fatalf("failures %d, want 3", r.Failures())
	}
}
