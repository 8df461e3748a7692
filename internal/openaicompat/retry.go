package openaicompat

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry says when a failed call is made again, as OpenAI's SDKs do: after a
// connection error or a 408, 409, 429 or 5xx answer (or whatever the
// server's x-should-retry header says), waiting as the server asks
// (retry-after-ms, Retry-After) or with exponential backoff.
type Retry struct {
	// Max is how many times a call is retried; 0 makes none.
	Max int
	// MaxDelay is the longest wait before a retry; 0 means DefaultMaxDelay.
	// A server that asks for a longer wait gets its error returned at
	// once: a retry after it would only end in the caller's timeout.
	MaxDelay time.Duration
	// Final, when set, marks transport errors that no retry can mend (the
	// outbound guard's refusal of an address).
	Final func(error) bool
}

// DefaultMaxDelay is the longest backoff, as in OpenAI's SDKs.
const DefaultMaxDelay = 8 * time.Second

// initialDelay is the first backoff; each retry doubles it.
const initialDelay = 500 * time.Millisecond

// next decides after attempt (0 for the first) whether to try again and
// after how long. res is the answer, nil when err is set.
func (r Retry) next(attempt int, res *http.Response, err error) (time.Duration, bool) {
	if attempt >= r.Max {
		return 0, false
	}
	maxDelay := r.MaxDelay
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	if err != nil {
		if r.Final != nil && r.Final(err) {
			return 0, false
		}
		return min(backoff(attempt), maxDelay), true
	}
	if !retriable(res) {
		return 0, false
	}
	if asked, ok := askedDelay(res.Header, time.Now()); ok {
		return asked, asked <= maxDelay
	}
	return min(backoff(attempt), maxDelay), true
}

// retriable reports whether an answer is worth a retry.
func retriable(res *http.Response) bool {
	switch res.Header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	switch c := res.StatusCode; {
	case c == http.StatusRequestTimeout, c == http.StatusConflict, c == http.StatusTooManyRequests:
		return true
	case c >= 500:
		return true
	}
	return false
}

// backoff is 0.5 s doubled per attempt, at most DefaultMaxDelay, less up to
// a quarter at random so that many clients do not retry in step.
func backoff(attempt int) time.Duration {
	d := min(initialDelay<<min(attempt, 10), DefaultMaxDelay)
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// askedDelay reads the wait a server asks for: retry-after-ms (OpenAI's,
// fractional milliseconds), else Retry-After in seconds or as an HTTP date.
func askedDelay(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
