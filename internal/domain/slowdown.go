package domain

import "time"

// SlowDownError is a refusal that waiting clears: the answer is 429 with
// a Retry-After header and without limit_reached, like the spec's per-IP
// rate limit, so that clients tell it from the account-blocked 429 (which
// waiting does not clear). The per-agent limits on new conversations per
// address and per visitor (package initlimit) return it.
type SlowDownError struct {
	Msg        string
	RetryAfter time.Duration
}

func (e *SlowDownError) Error() string { return e.Msg }
