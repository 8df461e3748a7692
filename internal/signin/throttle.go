// Package signin decides when a client may try a password: failed
// sign-ins make the same client wait longer and longer, never the account's
// owner elsewhere (docs/operations.md, "Sign-in throttling").
package signin

import (
	"crypto/sha256"
	"strings"
	"time"

	"parley/internal/clientip"
	"parley/internal/ratelimit"
)

// The rule. Guessing one account from one address: five tries, then
// waits of 1 s, 2 s, 4 s … up to 15 minutes between tries (about four an
// hour). One address guessing across many accounts (password spraying):
// twenty tries, then the same growing waits. Failures fade (one per 30
// minutes for an account at an address, one per 10 minutes for an
// address), so occasional typos, even from a busy office behind one
// address, never add up.
var (
	PairRule    = ratelimit.BackoffRule{Free: 5, Base: time.Second, Cap: 15 * time.Minute, Decay: 30 * time.Minute}
	AddressRule = ratelimit.BackoffRule{Free: 20, Base: time.Second, Cap: 15 * time.Minute, Decay: 10 * time.Minute}
)

// maxKeys bounds each table (about 100 bytes a key): an attacker with more
// addresses than this pushes out first the keys that make no one wait.
const maxKeys = 100_000

// Throttle counts failed sign-ins per (account, address) and per address.
// A client waits for the longer of the two; nothing counts per account
// alone, so failures from elsewhere never keep the owner out.
type Throttle struct {
	pair, addr *ratelimit.Backoff
}

func New() *Throttle {
	return &Throttle{pair: ratelimit.NewBackoff(PairRule, maxKeys), addr: ratelimit.NewBackoff(AddressRule, maxKeys)}
}

// Wait is how long the client at ip must wait before it may try a
// password for email; 0 means now.
func (t *Throttle) Wait(now time.Time, email, ip string) time.Duration {
	a := addrKey(ip)
	return max(t.pair.Wait(now, pairKey(email, a)), t.addr.Wait(now, a))
}

// Failed counts a wrong password (or an unknown email) from ip.
func (t *Throttle) Failed(now time.Time, email, ip string) {
	a := addrKey(ip)
	t.pair.Fail(now, pairKey(email, a))
	t.addr.Fail(now, a)
}

// Succeeded forgets the failures of email at ip. The address's own count
// stays: signing in to one's own account must not reset a spray.
func (t *Throttle) Succeeded(email, ip string) {
	t.pair.Forget(pairKey(email, addrKey(ip)))
}

// addrKey names the client's network (an IPv6 client is its /64).
func addrKey(ip string) string { return clientip.Network(ip) }

// pairKey is a fixed-size key for (email, address), whatever the length of
// the email typed.
func pairKey(email, addr string) string {
	h := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email)) + "\x00" + addr))
	return string(h[:16])
}
