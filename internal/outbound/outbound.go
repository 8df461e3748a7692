// Package outbound guards the requests Parley makes to URLs its tenants
// supply: an agent's own LLM endpoint now; embedding endpoints, website
// sources and webhooks when they come. Without it, anyone who can save an
// agent could make the server call its own loopback services, the cloud's
// metadata address or the private network, and read the answers (SSRF).
//
// A Guard refuses every address that is not public internet (see Classify)
// twice over:
//
//   - when a URL is saved, CheckURL resolves its host and says why it is
//     refused, so the owner learns it at once;
//   - on every connection, the dialer's Control function checks the IP
//     address actually being dialled, after DNS. That is the protection
//     that counts: a name that resolved to a public address when saved and
//     to 127.0.0.1 now (DNS rebinding), and a redirect to a private
//     address, are refused before any packet is sent.
//
// Only http and https are followed, and never through a proxy from the
// environment: through a proxy the address dialled would be the proxy's,
// and the check would say nothing about where the request goes.
//
// Options.AllowPrivate lifts the address rule for an owner who runs Ollama
// beside Parley or crawls an intranet (PARLEY_FETCH_ALLOW_PRIVATE). URLs
// the administrator configures (PARLEY_LLM_BASE_URL) are trusted and do
// not come here.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

const (
	// DefaultLookupTimeout bounds CheckURL's DNS lookup: saving a form
	// must not hang on a slow resolver.
	DefaultLookupTimeout = 2 * time.Second
	// maxRedirects is net/http's own limit, kept.
	maxRedirects = 10
)

// Options configure a Guard.
type Options struct {
	// AllowPrivate lets tenant URLs reach any address. Schemes stay http
	// and https, and the environment's proxy is still not used.
	AllowPrivate bool
	// Resolver looks up host names for CheckURL; nil is net.DefaultResolver.
	// Dials use the system resolver, whatever it answers is checked there.
	Resolver Resolver
	// LookupTimeout bounds CheckURL's lookup; 0 is DefaultLookupTimeout.
	LookupTimeout time.Duration
	// TestOnlyAllowAddrs is for tests of other packages, never for
	// configuration: dials to exactly these addresses and ports are let
	// through although the rule refuses them, so that a loopback test
	// server can stand for a public site while every other loopback
	// address stays refused (a redirect from it to 127.0.0.1 is then
	// refused as in production).
	TestOnlyAllowAddrs []netip.AddrPort
}

// Resolver is the part of *net.Resolver that CheckURL uses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard checks tenant URLs and dials them. It is safe for concurrent use;
// one per process is enough, and its transport's connection pool is shared
// by every client it makes.
type Guard struct {
	allowPrivate  bool
	resolver      Resolver
	lookupTimeout time.Duration
	dialer        *net.Dialer
	transport     *http.Transport

	// allowDial, set only by tests, lets a dial through that the rule
	// refuses: a loopback test server standing for a public one, so that a
	// redirect from it to a refused address can be tested.
	allowDial func(netip.AddrPort) bool
}

// New returns a Guard.
func New(o Options) *Guard {
	g := &Guard{allowPrivate: o.AllowPrivate, resolver: o.Resolver, lookupTimeout: o.LookupTimeout}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.lookupTimeout <= 0 {
		g.lookupTimeout = DefaultLookupTimeout
	}
	if allow := o.TestOnlyAllowAddrs; len(allow) > 0 {
		g.allowDial = func(ap netip.AddrPort) bool {
			for _, a := range allow {
				if ap.Addr().Unmap() == a.Addr().Unmap() && ap.Port() == a.Port() {
					return true
				}
			}
			return false
		}
	}
	// net/http's default dialer settings, plus the check.
	g.dialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, ControlContext: g.control}
	t := &http.Transport{}
	if def, ok := http.DefaultTransport.(*http.Transport); ok {
		t = def.Clone()
	}
	t.Proxy = nil
	t.DialContext = g.dialer.DialContext
	t.DialTLSContext = nil // TLS runs over DialContext's checked connection
	g.transport = t
	return g
}

// AllowsPrivate reports whether the address rule is lifted.
func (g *Guard) AllowsPrivate() bool { return g.allowPrivate }

// CheckAddr returns nil when addr may be dialled, else a *Refusal.
func (g *Guard) CheckAddr(addr netip.Addr) error {
	if g.allowPrivate {
		return nil
	}
	if c := Classify(addr); c != Public {
		return &Refusal{Addr: addr.WithZone(""), Class: c}
	}
	return nil
}

// control runs on every connection attempt, with the IP address and port
// about to be dialled (DNS already done), before the connection is made:
// a refusal costs no packet, so it takes the same time whether or not
// anything listens there.
func (g *Guard) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return fmt.Errorf("outbound: network %q is not allowed", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("outbound: dialled address %q: %w", address, err)
	}
	if g.allowDial != nil && g.allowDial(ap) {
		return nil
	}
	return g.CheckAddr(ap.Addr())
}

// DialContext dials address like net.Dialer.DialContext, refusing the
// addresses the rule refuses (the error wraps a *Refusal).
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return g.dialer.DialContext(ctx, network, address)
}

// Transport is the guard's shared transport: every connection is checked,
// no proxy is used. It has no timeouts of its own beyond net/http's
// defaults; callers bound each request with its context.
func (g *Guard) Transport() http.RoundTripper { return g.transport }

// Client returns an HTTP client over the guard's transport that follows
// up to 10 redirects, to http and https URLs only; the dial check applies
// to every hop.
func (g *Guard) Client() *http.Client {
	return &http.Client{Transport: g.transport, CheckRedirect: checkRedirect}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("outbound: stopped after %d redirects", maxRedirects)
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return &URLError{Problem: fmt.Sprintf("a redirect to scheme %q is not followed: only http and https", s)}
	}
	return nil
}

// Refusal is the guard's answer to an address it will not call.
type Refusal struct {
	Host  string // the host name that resolved to Addr; "" when the URL or the dial named the address
	Addr  netip.Addr
	Class Class
}

func (r *Refusal) Error() string {
	what := r.Addr.String() + " is " + r.Class.String()
	if r.Host != "" {
		what = r.Host + " resolves to " + r.Addr.String() + ", " + r.Class.String()
	}
	return what + "; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)"
}

// IsRefusal reports whether err is, or wraps, the guard's refusal of an
// address.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}
