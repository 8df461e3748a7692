package ratelimit

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisTake is Take as one script, so that the check of every key and
// the counting of all of them are one atomic step on the server: exact
// across instances and under concurrency. KEYS are the window's counters;
// ARGV[1] is their expiry in milliseconds, ARGV[i+1] the limit of KEYS[i]
// (0: not counted). It returns 0 when counted, else the 1-based index of
// the first key at its limit, having counted nothing.
var redisTake = redis.NewScript(`
for i, k in ipairs(KEYS) do
	local limit = tonumber(ARGV[i + 1])
	if limit > 0 and tonumber(redis.call('GET', k) or '0') >= limit then
		return i
	end
end
for i, k in ipairs(KEYS) do
	if tonumber(ARGV[i + 1]) > 0 and redis.call('INCR', k) == 1 then
		redis.call('PEXPIRE', k, ARGV[1])
	end
end
return 0
`)

// DefaultRedisCounterPrefix starts every key of a RedisCounter.
const DefaultRedisCounterPrefix = "parley:cnt:"

// RedisCounter is a Counter whose counts live in Redis, shared by every
// instance, in the same aligned windows as MemoryCounter. The keys of one
// Take are sent in one script, so on a Redis Cluster they must hash to one
// slot: give them a common hash tag ("{ag_1}:ip:…", as initlimit does).
//
// It fails open like Redis: when Redis errors or does not answer within
// the timeout, the Take is allowed, Failures counts it and a warning is
// logged at most every ten seconds. The counts protect an owner's
// allowance from abuse; the allowance itself is enforced by the database
// and does not fail open.
type RedisCounter struct {
	client  redis.UniversalClient
	window  int64
	ttl     int64 // milliseconds
	timeout time.Duration
	prefix  string
	now     func() time.Time
	log     *slog.Logger

	failures atomic.Uint64
	lastLog  atomic.Int64
}

var _ Counter = (*RedisCounter)(nil)

// NewRedisCounter counts in client, in windows of the given length. The
// options are the Redis limiter's: timeout, key prefix (default
// DefaultRedisCounterPrefix), clock and logger; the IPv6 prefix is not
// used (keys are strings).
func NewRedisCounter(client redis.UniversalClient, window time.Duration, opts ...RedisOption) *RedisCounter {
	if window <= 0 {
		panic("ratelimit: window must be positive")
	}
	if client == nil {
		panic("ratelimit: NewRedisCounter needs a client")
	}
	cfg := redisConfig{timeout: DefaultRedisTimeout, prefix: DefaultRedisCounterPrefix, now: time.Now, log: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	return &RedisCounter{
		client: client, window: int64(window), ttl: (window + redisExpiryMargin).Milliseconds(),
		timeout: cfg.timeout, prefix: cfg.prefix, now: cfg.now, log: cfg.log,
	}
}

// Take implements Counter.
func (r *RedisCounter) Take(ctx context.Context, asks ...Ask) Taken {
	index, retry := windowIndex(r.now(), r.window)
	keys := make([]string, len(asks))
	args := make([]any, 1, len(asks)+1)
	args[0] = r.ttl
	counted := false
	for i, a := range asks {
		keys[i] = r.prefix + strconv.FormatInt(index, 10) + ":" + a.Key
		args = append(args, max(a.Limit, 0))
		counted = counted || a.Limit > 0
	}
	if !counted {
		return allowedTaken
	}
	n, err := r.run(ctx, keys, args)
	if err != nil {
		if ctx.Err() == nil {
			r.failed(err)
		}
		return allowedTaken
	}
	if n > 0 && int(n) <= len(asks) {
		return Taken{Refused: int(n) - 1, RetryAfter: retry}
	}
	return allowedTaken
}

// run runs the script within the timeout (see runScript).
func (r *RedisCounter) run(ctx context.Context, keys []string, args []any) (int64, error) {
	return runScript(ctx, r.timeout, r.client, redisTake, keys, args...)
}

// Failures reports how many Takes were allowed because Redis failed.
func (r *RedisCounter) Failures() uint64 { return r.failures.Load() }

func (r *RedisCounter) failed(err error) {
	total := r.failures.Add(1)
	now := r.now().UnixNano()
	last := r.lastLog.Load()
	if last != 0 && now >= last && now-last < int64(redisLogEvery) {
		return
	}
	if r.lastLog.CompareAndSwap(last, now) {
		r.log.Warn("conversation limits: Redis failed; allowing new conversations without the shared count",
			"err", err, "failures_total", total)
	}
}
