package outbound

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// URLError is a tenant URL the guard will not use whatever it points at: not
// a URL, a scheme other than http or https, no host.
type URLError struct {
	Problem string
}

func (e *URLError) Error() string { return e.Problem }

// CheckURL says whether raw may be called, when a tenant saves it: nil, a
// *URLError, or a *Refusal naming the refused address.
//
// A host name is resolved (within the lookup timeout) and refused when any
// of its addresses is, since a dial may pick any of them. A name that does
// not resolve now is accepted: DNS may be down for a moment or the name
// not published yet, refusing it would tell the owner nothing true about
// the endpoint, and what counts is the check on every dial, which no later
// DNS answer escapes.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return &URLError{Problem: "not a valid URL"}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return &URLError{Problem: "no scheme: use http:// or https://"}
	default:
		return &URLError{Problem: fmt.Sprintf("scheme %q is not allowed: use http or https", u.Scheme)}
	}
	host := u.Hostname()
	if host == "" {
		return &URLError{Problem: "no host"}
	}
	if g.allowPrivate {
		return nil
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return g.CheckAddr(addr)
	}
	ctx, cancel := context.WithTimeout(ctx, g.lookupTimeout)
	defer cancel()
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil // see above: the dial decides
	}
	for _, a := range addrs {
		// Go's resolver hands IPv4 answers back as ::ffff:a.b.c.d; the
		// owner wrote a name and should read the plain address.
		if err := g.CheckAddr(a.Unmap()); err != nil {
			r := err.(*Refusal)
			r.Host = host
			return r
		}
	}
	return nil
}
