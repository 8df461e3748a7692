package ratelimit

import "time"

// DefaultMaxTracked bounds the IPs a Memory limiter remembers per window.
// At roughly 24 bytes a slot that is a few tens of MiB in the worst case.
const DefaultMaxTracked = 1 << 20

// Option configures NewMemory.
type Option func(*config)

type config struct {
	now        func() time.Time
	maxTracked int
	v6Bits     int
}

func defaultConfig() config {
	return config{now: time.Now, maxTracked: DefaultMaxTracked, v6Bits: 64}
}

// WithClock replaces time.Now, so tests can step through windows.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithMaxTracked sets the hard cap on distinct keys remembered per window.
// n <= 0 keeps DefaultMaxTracked. See Memory for what happens at the cap.
func WithMaxTracked(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxTracked = n
		}
	}
}

// WithIPv6Prefix sets how many leading bits of an IPv6 address identify a
// client (default 64). A single host usually owns a whole /64 and can pick
// any address in it, so counting full addresses would let it bypass the
// limit and flood the tracking table. Use 128 to count every address.
// Values outside 0..128 are clamped.
func WithIPv6Prefix(bits int) Option {
	return func(c *config) { c.v6Bits = min(max(bits, 0), 128) }
}
