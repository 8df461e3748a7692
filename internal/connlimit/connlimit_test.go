package connlimit

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"testing"
	"time"
)

// listen opens a Listener on a loopback port. Clients dial it from other
// loopback addresses (127.0.0.0/8 is all loopback on Linux) to stand for
// distinct client addresses.
func listen(t *testing.T, o Options) *Listener {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(tcp, o)
	t.Cleanup(func() { l.Close() })
	return l
}

// dial connects to l from the address from (port chosen by the system).
func dial(t *testing.T, l net.Listener, from string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", l.Addr().String())
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skipf("cannot dial from %s: on Linux all of 127.0.0.0/8 is loopback", from)
	}
	if err != nil {
		t.Fatal(err)
	}
	// A guard against a hang, not a timing assertion.
	c.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// accept takes the next admitted connection.
func accept(t *testing.T, l *Listener) *Conn {
	t.Helper()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c.(*Conn)
}

// closedByServer reports whether the server end of c is gone: the client
// reads EOF or a reset where a live connection would block. Only call it
// on connections expected to be closed (or the deadline ends the test).
func closedByServer(c net.Conn) bool {
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func wantStats(t *testing.T, l *Listener, open, idle int) {
	t.Helper()
	if s := l.Stats(); s.Open != open || s.Idle != idle {
		t.Fatalf("open %d, idle %d; want %d and %d (%+v)", s.Open, s.Idle, open, idle, s)
	}
}

func TestCloseCountsOutOnce(t *testing.T) {
	t.Parallel()
	l := listen(t, Options{})
	dial(t, l, "127.0.0.1")
	dial(t, l, "127.0.0.1")
	a, b := accept(t, l), accept(t, l)
	wantStats(t, l, 2, 2)
	l.ConnState(a, http.StateActive)
	wantStats(t, l, 2, 1)
	a.Close()
	a.Close()
	l.ConnState(a, http.StateIdle) // late news of a closed connection
	l.ConnState(a, http.StateClosed)
	wantStats(t, l, 1, 1)
	b.Close()
	wantStats(t, l, 0, 0)
	if n := len(l.clients); n != 0 {
		t.Fatalf("%d clients remembered after all closed", n)
	}
}

// A connection taken over by its handler (a parked long poll) counts, is
// not idle, and is idle again once handed back to the server.
func TestHijackedIsNotIdle(t *testing.T) {
	t.Parallel()
	l := listen(t, Options{})
	dial(t, l, "127.0.0.1")
	c := accept(t, l)
	l.ConnState(c, http.StateNew)
	l.ConnState(c, http.StateActive)
	l.ConnState(c, http.StateHijacked)
	wantStats(t, l, 1, 0)
	// Handed back through a wrapper (package park's, after pipelining).
	l.ConnState(wrapped{c}, http.StateNew)
	wantStats(t, l, 1, 1)
	wrapped{c}.Close()
	wantStats(t, l, 0, 0)
}

type wrapped struct{ net.Conn }

func (w wrapped) NetConn() net.Conn { return w.Conn }

func TestPerClientCapClosesTheClientsOldestIdle(t *testing.T) {
	t.Parallel()
	l := listen(t, Options{PerClient: 2})
	first := dial(t, l, "127.0.0.2")
	dial(t, l, "127.0.0.2")
	dial(t, l, "127.0.0.3") // another client's: untouched
	accept(t, l)
	accept(t, l)
	accept(t, l)
	dial(t, l, "127.0.0.2")
	accept(t, l)
	if !closedByServer(first) {
		t.Fatal("the client's oldest idle connection is still open")
	}
	wantStats(t, l, 3, 3)
	if s := l.Stats(); s.Cut != 1 {
		t.Fatalf("cut %d, want 1", s.Cut)
	}
}

func TestPerClientCapRefusesWhenNothingIsIdle(t *testing.T) {
	t.Parallel()
	l := listen(t, Options{PerClient: 2, Exempt: func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.5") }})
	dial(t, l, "127.0.0.4")
	dial(t, l, "127.0.0.4")
	for range 2 {
		l.ConnState(accept(t, l), http.StateActive)
	}
	over := dial(t, l, "127.0.0.4")
	// Exempt (a trusted proxy): no cap, and it shows the one before was handled.
	for range 3 {
		dial(t, l, "127.0.0.5")
		accept(t, l)
	}
	res, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Content-Type") != "application/json" ||
		string(body) != `{"error":"too many open connections from your address; close some and retry"}` {
		t.Fatalf("refusal = %d %v %s", res.StatusCode, res.Header, body)
	}
	s := l.Stats()
	if s.Open != 5 || s.RefusedPerClient != 1 || s.Cut != 0 {
		t.Fatalf("stats %+v, want 5 open, 1 refused, none cut", s)
	}
}

func TestBudgetClosesOldestIdleUnderPressure(t *testing.T) {
	t.Parallel()
	// A budget of 10: pressure from 9 open.
	l := listen(t, Options{Budget: 10})
	var clients []net.Conn
	var conns []*Conn
	for range 9 {
		clients = append(clients, dial(t, l, "127.0.0.6"))
		conns = append(conns, accept(t, l))
	}
	l.ConnState(conns[0], http.StateActive) // in a request: never cut
	wantStats(t, l, 9, 8)
	dial(t, l, "127.0.0.7")
	newest := accept(t, l)
	if !closedByServer(clients[1]) {
		t.Fatal("the oldest idle connection is still open")
	}
	wantStats(t, l, 9, 8)
	// Everything busy: the budget's last place is taken, then refusals.
	for _, c := range append(conns[2:], newest) {
		l.ConnState(c, http.StateActive)
	}
	dial(t, l, "127.0.0.7")
	l.ConnState(accept(t, l), http.StateActive)
	wantStats(t, l, 10, 0)
	over := dial(t, l, "127.0.0.8")
	go l.Accept() // refuses over, then waits until the listener closes
	res, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("over the budget: %d %v", res.StatusCode, res.Header)
	}
	s := l.Stats()
	if s.Open != 10 || s.RefusedBudget != 1 || s.Cut != 1 {
		t.Fatalf("stats %+v, want 10 open, 1 refused, 1 cut", s)
	}
}

func TestCountingUnderConcurrency(t *testing.T) {
	t.Parallel()
	l := listen(t, Options{Budget: 40, PerClient: 15})
	var closers sync.WaitGroup
	acceptor := make(chan struct{})
	go func() {
		defer close(acceptor)
		for {
			nc, err := l.Accept()
			if err != nil {
				return // the listener closed
			}
			c := nc.(*Conn)
			closers.Go(func() {
				l.ConnState(c, http.StateActive)
				l.ConnState(c, http.StateIdle)
			})
			closers.Go(func() { c.Close() })
			closers.Go(func() { c.Close(); l.ConnState(c, http.StateClosed) })
		}
	}()
	var clients []net.Conn
	for i := range 300 {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(10+i%4))}}
		c, err := d.Dial("tcp", l.Addr().String())
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			t.Skip("cannot dial from 127.0.0.10: on Linux all of 127.0.0.0/8 is loopback")
		}
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	// Connections still in the kernel's queue are dropped, never counted.
	l.Close()
	<-acceptor
	closers.Wait()
	for _, c := range clients {
		c.Close()
	}
	wantStats(t, l, 0, 0)
	if len(l.clients) != 0 {
		t.Fatalf("%d clients remembered after all closed", len(l.clients))
	}
}

func TestClientKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ addr, want string }{
		{"192.0.2.1:80", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:80", "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:80", "2001:db8:1:2::"},
		{"[fe80::1%eth0]:80", "fe80::"},
	} {
		a, _ := net.ResolveTCPAddr("tcp", tc.addr)
		if got := clientKey(peerIP(a)); got.String() != tc.want {
			t.Errorf("clientKey(%s) = %s, want %s", tc.addr, got, tc.want)
		}
	}
	if a, _ := net.Pipe(); peerIP(a.RemoteAddr()).IsValid() {
		t.Error("a pipe has a client address")
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit uint64
		want  int
	}{
		{0, 0},
		{256, 128},        // half of a small limit
		{1024, 824},       // at least 200 in reserve
		{20000, 18000},    // a tenth
		{1 << 20, 943719}, // systemd's and Docker's usual hard limit
		{1 << 62, 966367642},
	} {
		if got := Budget(tc.limit); got != tc.want {
			t.Errorf("Budget(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
}

// What the limits add to each request on a kept-alive connection: the
// server's two state changes (active, then idle again).
func BenchmarkRequestStateChanges(b *testing.B) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	l := New(tcp, Options{Budget: 1000, PerClient: 256})
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	c, err := l.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for b.Loop() {
		l.ConnState(c, http.StateActive)
		l.ConnState(c, http.StateIdle)
	}
}
