package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// counted is a loopback server that counts the requests reaching it.
type counted struct {
	*httptest.Server
	hits atomic.Int64
}

func newCounted(t *testing.T, h http.HandlerFunc) *counted {
	t.Helper()
	c := &counted{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

func ok(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "secret") }

func get(t *testing.T, c *http.Client, u string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b), nil
}

// The dial check sees the address actually dialled: literal addresses in
// every form, on any port.
func TestControlChecksTheDialledAddress(t *testing.T) {
	t.Parallel()
	g := New(Options{})
	tests := []struct {
		network, address string
		refused          bool
	}{
		{"tcp", "93.184.216.34:443", false},
		{"tcp6", "[2606:4700:4700::1111]:443", false},
		{"tcp4", "127.0.0.1:9100", true},
		{"tcp", "127.0.0.1:1", true},
		{"tcp6", "[::1]:80", true},
		{"tcp6", "[::ffff:127.0.0.1]:9100", true},
		{"tcp6", "[64:ff9b::a9fe:a9fe]:80", true}, // NAT64 of 169.254.169.254
		{"tcp4", "169.254.169.254:80", true},
		{"tcp4", "10.1.2.3:11434", true},
		{"tcp6", "[fe80::1%eth0]:80", true},
		{"tcp4", "0.0.0.0:80", true},
	}
	for _, tt := range tests {
		err := g.control(context.Background(), tt.network, tt.address, nil)
		if (err != nil) != tt.refused || (tt.refused && !IsRefusal(err)) {
			t.Errorf("control(%s, %s) = %v, want refused %v", tt.network, tt.address, err, tt.refused)
		}
	}
	if err := g.control(context.Background(), "udp", "93.184.216.34:53", nil); err == nil {
		t.Error("a UDP dial was let through")
	}
	allow := New(Options{AllowPrivate: true})
	if err := allow.control(context.Background(), "tcp4", "127.0.0.1:9100", nil); err != nil {
		t.Errorf("AllowPrivate: %v", err)
	}
}

// A server on loopback is never reached through the guard, named by its
// address or by a name that resolves to it (what DNS rebinding does: the
// name is only looked up at dial time, and whatever it answers then is
// checked). AllowPrivate lets the same calls through.
func TestClientRefusesPrivateServers(t *testing.T) {
	t.Parallel()
	srv := newCounted(t, ok)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	urls := []string{
		srv.URL,
		"http://localhost:" + strconv.Itoa(port),
		"http://[::ffff:127.0.0.1]:" + strconv.Itoa(port),
	}
	guarded := New(Options{}).Client()
	for _, u := range urls {
		_, err := get(t, guarded, u)
		var r *Refusal
		if !errors.As(err, &r) || r.Class != Loopback {
			t.Errorf("GET %s: %v, want a loopback refusal", u, err)
		}
	}
	if n := srv.hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the loopback server", n)
	}

	open := New(Options{AllowPrivate: true}).Client()
	for _, u := range urls[:2] {
		if body, err := get(t, open, u); err != nil || body != "secret" {
			t.Errorf("AllowPrivate GET %s: %q, %v", u, body, err)
		}
	}
}

// A redirect from an allowed server to a refused address is refused at
// its dial. The first server stands for a public one: the test lets the
// guard dial exactly its address and port, and nothing else on loopback.
func TestRedirectToPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	target := newCounted(t, ok)
	for _, to := range []string{target.URL + "/admin", strings.Replace(target.URL, "127.0.0.1", "localhost", 1)} {
		public := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		})
		g := New(Options{})
		g.allowDial = func(ap netip.AddrPort) bool { return ap.String() == public.Listener.Addr().String() }

		_, err := get(t, g.Client(), public.URL)
		if !IsRefusal(err) {
			t.Errorf("redirect to %s: %v, want a refusal", to, err)
		}
		if public.hits.Load() != 1 {
			t.Errorf("the first hop was not made: %d", public.hits.Load())
		}
		// Without the guard the redirect lands (so the test means something).
		if body, err := get(t, &http.Client{}, public.URL); err != nil || body != "secret" {
			t.Fatalf("plain client: %q, %v", body, err)
		}
	}
	if n := target.hits.Load(); n != 2 {
		t.Errorf("the private server saw %d requests, want only the plain client's 2", n)
	}
}

// Redirects go to http and https only.
func TestRedirectSchemes(t *testing.T) {
	t.Parallel()
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	_, err := get(t, New(Options{AllowPrivate: true}).Client(), srv.URL)
	var ue *URLError
	if !errors.As(err, &ue) {
		t.Fatalf("redirect to file://: %v", err)
	}
}

// Tenant URLs never go through the environment's proxy: the address
// dialled would be the proxy's. (net/http never proxies loopback requests,
// so this cannot be shown with a test server; the transport's setting is
// what decides.)
func TestNoProxy(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{false, true} {
		g := New(Options{AllowPrivate: allow})
		if g.transport.Proxy != nil {
			t.Errorf("AllowPrivate=%v: the transport has a proxy function", allow)
		}
		if g.Client().Transport != g.Transport() {
			t.Error("the client does not use the guard's transport")
		}
	}
}

// fakeResolver answers from a map; a missing name is not found.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	if host == "slow.example" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	as, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range as {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	res := fakeResolver{
		"api.example":    {"93.184.216.34", "2606:4700::1"},
		"mixed.example":  {"93.184.216.34", "10.0.0.7"},
		"meta.example":   {"169.254.169.254"},
		"ollama.example": {"::1"},
	}
	strict := New(Options{Resolver: res, LookupTimeout: time.Millisecond})
	open := New(Options{Resolver: res, AllowPrivate: true})
	tests := []struct {
		url     string
		strict  string // "" accepted, "url" a URLError, else the refusal's text
		allowed bool   // accepted with AllowPrivate
	}{
		{"https://api.example/v1", "", true},
		{"http://api.example:8080/v1", "", true},
		{"https://93.184.216.34/v1", "", true},
		{"http://127.0.0.1:9100/v1", "127.0.0.1 is a loopback address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://[::ffff:127.0.0.1]:9100/v1", "::ffff:127.0.0.1 is a loopback address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://meta.example/", "meta.example resolves to 169.254.169.254, a link-local address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://mixed.example/v1", "mixed.example resolves to 10.0.0.7, a private address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://ollama.example:11434/v1", "ollama.example resolves to ::1, a loopback address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://100.64.1.1/", "100.64.1.1 is a shared (carrier-grade NAT) address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://[fd00::1]/", "fd00::1 is a private address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		{"http://0.0.0.0:9100/", "0.0.0.0 is an unspecified address; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)", true},
		// Not resolvable now: accepted; the dial decides.
		{"https://not-yet.example/v1", "", true},
		{"https://slow.example/v1", "", true},
		// Never, whatever the address rule.
		{"ftp://api.example/", "url", false},
		{"file:///etc/passwd", "url", false},
		{"gopher://127.0.0.1:6379/_INFO", "url", false},
		{"api.example/v1", "url", false},
		{"http:///v1", "url", false},
		{"http://%zz/", "url", false},
	}
	for _, tt := range tests {
		err := strict.CheckURL(context.Background(), tt.url)
		var ue *URLError
		switch {
		case tt.strict == "" && err != nil, tt.strict == "url" && !errors.As(err, &ue):
			t.Errorf("CheckURL(%s) = %v, want %q", tt.url, err, tt.strict)
		case tt.strict != "" && tt.strict != "url" && (err == nil || err.Error() != tt.strict || !IsRefusal(err)):
			t.Errorf("CheckURL(%s) = %v, want %q", tt.url, err, tt.strict)
		}
		if err := open.CheckURL(context.Background(), tt.url); (err == nil) != tt.allowed {
			t.Errorf("AllowPrivate CheckURL(%s) = %v, want accepted %v", tt.url, err, tt.allowed)
		}
	}
}

// The real resolver: localhost is loopback (from /etc/hosts, no network).
func TestCheckURLLocalhost(t *testing.T) {
	t.Parallel()
	err := New(Options{}).CheckURL(context.Background(), "http://localhost:11434/v1")
	var r *Refusal
	if !errors.As(err, &r) || r.Host != "localhost" || r.Class != Loopback || !strings.HasPrefix(err.Error(), "localhost resolves to ") {
		t.Fatalf("CheckURL(localhost) = %v", err)
	}
}

// Options.TestOnlyAllowAddrs lets exactly the listed address and port
// through, and nothing else on loopback: not the same address on another
// port.
func TestTestOnlyAllowAddrs(t *testing.T) {
	t.Parallel()
	allowed := newCounted(t, ok)
	other := newCounted(t, ok)
	g := New(Options{TestOnlyAllowAddrs: []netip.AddrPort{netip.MustParseAddrPort(allowed.Listener.Addr().String())}})
	if body, err := get(t, g.Client(), allowed.URL); err != nil || body != "secret" {
		t.Errorf("the listed address: %q, %v", body, err)
	}
	if _, err := get(t, g.Client(), other.URL); !IsRefusal(err) {
		t.Errorf("another port on the same address: %v, want a refusal", err)
	}
	if other.hits.Load() != 0 {
		t.Error("the unlisted server was reached")
	}
}
