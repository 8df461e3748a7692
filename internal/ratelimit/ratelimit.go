// Package ratelimit counts requests per client IP in aligned fixed windows
// and refuses those over the limit. Handlers depend on the Limiter interface
// so the in-process Memory limiter can later be swapped for a shared store
// (Redis) without touching them.
package ratelimit

import (
	"context"
	"net/netip"
	"time"
)

// Decision is the outcome of one request against the limit.
type Decision struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Remaining is how many more requests the IP may make in the current
	// window. It is -1 when the limiter is disabled, so callers can tell
	// "unlimited" from "this was the last one".
	Remaining int
	// RetryAfter is the time until the current window ends. It is set only
	// when the request is refused; rounding up to whole seconds for the
	// Retry-After header is the caller's job.
	RetryAfter time.Duration
}

// Limiter is what HTTP handlers use. Implementations must be safe for
// concurrent use. The context is for implementations that make network
// calls; they decide themselves whether to fail open or closed, because a
// Decision has no error.
type Limiter interface {
	Allow(ctx context.Context, ip netip.Addr) Decision
}

// unlimited is returned by a disabled limiter.
var unlimited = Decision{Allowed: true, Remaining: -1}

// windowIndex numbers the aligned window that contains now. Floor division
// keeps windows the same length on both sides of the Unix epoch, which only
// matters for test clocks but costs nothing.
func windowIndex(now time.Time, window int64) (index int64, retryAfter time.Duration) {
	ns := now.UnixNano()
	index = ns / window
	if ns%window < 0 {
		index--
	}
	return index, time.Duration((index+1)*window - ns)
}
