// Package clientip decides which address a request came from, trusting
// X-Forwarded-For only as far as it was written by known proxies.
//
// Each proxy appends the address it received the connection from, so the
// header reads left to right from the claimed client towards us. Only the
// right-most entries, added by our own proxies, are trustworthy; anything
// further left may have been sent by the client itself. So the walk runs
// right to left and stops at the first address that is not a trusted proxy.
package clientip

import (
	"net/http"
	"net/netip"
	"strings"
)

// Resolver finds the client address of requests. It is immutable and safe
// for concurrent use.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver that believes X-Forwarded-For only when the TCP
// peer, and each hop walked through, is inside one of trusted. With no
// trusted prefixes the header is ignored and the peer is the client.
func New(trusted []netip.Prefix) *Resolver {
	r := &Resolver{}
	for _, p := range trusted {
		if p.IsValid() {
			r.trusted = append(r.trusted, normalize(p))
		}
	}
	return r
}

// ClientIP returns the client address of req, unmapped and without a zone.
// It returns the zero Addr when req.RemoteAddr cannot be parsed (for
// example on a Unix socket); callers treat that as one shared client.
//
// A malformed or empty X-Forwarded-For entry ends the walk at the last
// trusted hop reached, never at something further left, which the client
// could have forged. If every entry is trusted, the left-most one is
// returned.
func (r *Resolver) ClientIP(req *http.Request) netip.Addr {
	peer, ok := parseHop(req.RemoteAddr)
	if !ok || !r.isTrusted(peer) {
		return peer
	}
	last := peer
	lines := req.Header.Values("X-Forwarded-For")
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for {
			entry := rest
			comma := strings.LastIndexByte(rest, ',')
			if comma >= 0 {
				entry, rest = rest[comma+1:], rest[:comma]
			}
			hop, ok := parseHop(strings.TrimSpace(entry))
			if !ok {
				return last
			}
			if !r.isTrusted(hop) {
				return hop
			}
			last = hop
			if comma < 0 {
				break
			}
		}
	}
	return last
}

// parseHop accepts a bare address or address:port, the latter because
// RemoteAddr always has one and some proxies append ports to the header.
func parseHop(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}

// Trusted reports whether a is a trusted proxy's address: its connections
// carry many clients (package connlimit exempts them from the per-IP cap).
func (r *Resolver) Trusted(a netip.Addr) bool { return r.isTrusted(a.Unmap().WithZone("")) }

func (r *Resolver) isTrusted(a netip.Addr) bool {
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
