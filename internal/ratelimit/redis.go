package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisTimeout bounds how long one Allow waits for Redis. The limit
// sits in front of every widget request, so a slow Redis must cost a
// visitor little; past this the request is allowed (fail open).
const DefaultRedisTimeout = 50 * time.Millisecond

// DefaultRedisKeyPrefix starts every counter key, so the keys can be found
// (and told apart from other users of a shared Redis) with one SCAN.
const DefaultRedisKeyPrefix = "parley:rl:"

const (
	// redisExpiryMargin keeps a window's counter for this long after the
	// window could have ended. Instances compute the window from their own
	// clocks; with this margin, one that lags by up to this much still
	// finds the count instead of starting a fresh one.
	redisExpiryMargin = 10 * time.Second
	// redisLogEvery spaces out "Redis is failing" log lines: during an
	// outage every request fails, and one line per request would flood
	// the log. The Failures counter has the exact number.
	redisLogEvery = 10 * time.Second
)

// redisIncr counts one request and starts the key's expiry on the first,
// in one round trip. It runs as a script because a separate INCR and
// PEXPIRE could be split by a crash or timeout, leaving a counter that
// never expires and so locks its client out for good.
var redisIncr = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n
`)

// Redis is a Limiter whose counts live in Redis, so that all instances of
// the service share one limit per client. It uses the same aligned fixed
// windows and the same client keying as Memory: every instance agrees on
// which window a request falls in (up to clock skew), and Retry-After
// means the same on each.
//
// Redis fails open: when Redis errors or does not answer within the
// timeout, the request is allowed, Failures is incremented, and a warning
// is logged at most every ten seconds. An unreachable Redis must not take
// the widget down, and the limit is abuse protection, not accounting (the
// per-account quotas are enforced elsewhere and do not fail open).
type Redis struct {
	client  redis.UniversalClient
	limit   int64
	window  int64 // nanoseconds
	ttl     int64 // key expiry in milliseconds
	timeout time.Duration
	prefix  string
	now     func() time.Time
	log     *slog.Logger
	// keys is a disabled Memory used only for its keyOf, so that both
	// limiters map addresses to clients (IPv4-mapped, IPv6 prefix) the
	// same way.
	keys Memory

	failures atomic.Uint64
	lastLog  atomic.Int64 // UnixNano of the last failure warning, 0 if none
	down     atomic.Bool  // a failure was logged and no success seen since
}

var _ Limiter = (*Redis)(nil)

// RedisOption configures NewRedis.
type RedisOption func(*redisConfig)

type redisConfig struct {
	timeout time.Duration
	prefix  string
	v6Bits  int
	now     func() time.Time
	log     *slog.Logger
}

// WithRedisTimeout sets how long Allow waits for Redis before failing open
// (default DefaultRedisTimeout). d <= 0 keeps the default.
func WithRedisTimeout(d time.Duration) RedisOption {
	return func(c *redisConfig) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithRedisKeyPrefix replaces DefaultRedisKeyPrefix, for sharing one Redis
// between deployments or isolating tests.
func WithRedisKeyPrefix(prefix string) RedisOption {
	return func(c *redisConfig) { c.prefix = prefix }
}

// WithRedisIPv6Prefix is WithIPv6Prefix for the Redis limiter. All
// instances must use the same value, or they count different keys.
func WithRedisIPv6Prefix(bits int) RedisOption {
	return func(c *redisConfig) { c.v6Bits = min(max(bits, 0), 128) }
}

// WithRedisClock replaces time.Now, so tests can pin a window.
func WithRedisClock(now func() time.Time) RedisOption {
	return func(c *redisConfig) { c.now = now }
}

// WithRedisLogger sets where failures are reported (default slog.Default).
func WithRedisLogger(l *slog.Logger) RedisOption {
	return func(c *redisConfig) {
		if l != nil {
			c.log = l
		}
	}
}

// NewRedis returns a limiter allowing limit requests per client per window,
// counted in client. limit <= 0 disables it: every request is allowed and
// client is never used (it may be nil). window must be positive when limit
// is. The caller owns client and closes it.
func NewRedis(client redis.UniversalClient, limit int, window time.Duration, opts ...RedisOption) *Redis {
	cfg := redisConfig{
		timeout: DefaultRedisTimeout,
		prefix:  DefaultRedisKeyPrefix,
		v6Bits:  64,
		now:     time.Now,
		log:     slog.Default(),
	}
	for _, o := range opts {
		o(&cfg)
	}
	r := &Redis{
		client:  client,
		timeout: cfg.timeout,
		prefix:  cfg.prefix,
		now:     cfg.now,
		log:     cfg.log,
	}
	if limit <= 0 {
		return r
	}
	if window <= 0 {
		panic(fmt.Sprintf("ratelimit: window must be positive, got %v", window))
	}
	if client == nil {
		panic("ratelimit: NewRedis needs a client when the limit is enabled")
	}
	r.limit = int64(limit)
	r.window = int64(window)
	r.ttl = (window + redisExpiryMargin).Milliseconds()
	r.keys.v6Mask = prefixMask(cfg.v6Bits)
	return r
}

// Allow counts one request from ip. The zero Addr is a valid key, as for
// Memory. When Redis fails the request is allowed with Remaining -1 (not
// known); when ctx itself is cancelled the request is allowed too, but
// that is the caller going away, not Redis failing, so it is not counted.
func (r *Redis) Allow(ctx context.Context, ip netip.Addr) Decision {
	if r.limit == 0 {
		return unlimited
	}
	index, retry := windowIndex(r.now(), r.window)
	n, err := r.incr(ctx, r.key(index, ip))
	if err != nil {
		if ctx.Err() == nil {
			r.failed(err)
		}
		return Decision{Allowed: true, Remaining: -1}
	}
	if r.down.Load() && r.down.CompareAndSwap(true, false) {
		r.log.Info("rate limit: Redis answers again; the shared limit applies")
	}
	if n > r.limit {
		return Decision{RetryAfter: retry}
	}
	return Decision{Allowed: true, Remaining: int(r.limit - n)}
}

// Failures reports how many requests were allowed because Redis failed or
// did not answer in time.
func (r *Redis) Failures() uint64 { return r.failures.Load() }

// key is prefix + window index + ":" + the client's address after keying
// (so an IPv6 client shows as its /64 network address), e.g.
// "parley:rl:28333334:203.0.113.7". The index is in the key rather than
// resetting one key per client, so that a window's count cannot leak into
// the next however the expiry and clocks line up.
func (r *Redis) key(index int64, ip netip.Addr) string {
	var buf [96]byte
	b := append(buf[:0], r.prefix...)
	b = strconv.AppendInt(b, index, 10)
	b = append(b, ':')
	b = netip.AddrFrom16(r.keys.keyOf(ip)).Unmap().AppendTo(b)
	return string(b)
}

// incr runs the counting script, giving up after r.timeout.
func (r *Redis) incr(ctx context.Context, key string) (int64, error) {
	return runScript(ctx, r.timeout, r.client, redisIncr, []string{key}, r.ttl)
}

// runScript runs a script that answers a number, giving up after timeout.
// The call runs in its own goroutine because go-redis applies context
// deadlines to socket reads only when the client has ContextTimeoutEnabled;
// without it a hung Redis would hold each request for the client's
// ReadTimeout (seconds). The deadline still reaches go-redis, where it
// bounds waiting for a pooled connection and retries, so abandoned calls
// end soon too.
func runScript(ctx context.Context, timeout time.Duration, c redis.Scripter, script *redis.Script, keys []string, args ...any) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1) // buffered: the goroutine never blocks on an abandoned call
	go func() {
		n, err := script.Run(ctx, c, keys, args...).Int64()
		done <- result{n, err}
	}()
	select {
	case res := <-done:
		return res.n, res.err
	case <-ctx.Done():
		return 0, fmt.Errorf("no answer within %v: %w", timeout, ctx.Err())
	}
}

// failed counts a failure and logs it unless one was logged recently.
func (r *Redis) failed(err error) {
	total := r.failures.Add(1)
	now := r.now().UnixNano()
	last := r.lastLog.Load()
	if last != 0 && now >= last && now-last < int64(redisLogEvery) {
		return
	}
	// Of concurrent failures, only the one that moves lastLog logs.
	if !r.lastLog.CompareAndSwap(last, now) {
		return
	}
	r.down.Store(true)
	r.log.Warn("rate limit: Redis failed; allowing requests without the shared limit",
		"err", err, "failures_total", total)
}
