package connlimit_test

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"parley/internal/connlimit"
	"parley/internal/park"
)

// server is an http.Server wired as cmd/parley wires it: a park Listener
// over a connlimit Listener over TCP. /healthz answers at once; /park parks
// until release is closed. idled and hijacked hear of each connection that
// became idle or was taken over, once the Listener has.
type server struct {
	addr     string
	limits   *connlimit.Listener
	release  chan struct{}
	idled    chan struct{}
	hijacked chan struct{}
	stop     func()
}

func serve(t *testing.T, o connlimit.Options) *server {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{
		addr: tcp.Addr().String(), limits: connlimit.New(tcp, o), release: make(chan struct{}),
		idled: make(chan struct{}, 100), hijacked: make(chan struct{}, 100),
	}
	ln := park.NewListener(s.limits)
	lot := park.NewLot(ln)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/park" && lot.Park(w, r, func(w http.ResponseWriter) {
				<-s.release
				io.WriteString(w, "answered")
			}) {
				return
			}
			io.WriteString(w, `{"status":"ok"}`)
		}),
		ConnState: func(c net.Conn, st http.ConnState) {
			s.limits.ConnState(c, st)
			switch st {
			case http.StateIdle:
				s.idled <- struct{}{}
			case http.StateHijacked:
				s.hijacked <- struct{}{}
			}
		},
		ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError),
	}
	go srv.Serve(ln)
	stopped := false
	s.stop = func() {
		if !stopped {
			stopped = true
			srv.Close()
			lot.Wait()
		}
	}
	t.Cleanup(s.stop)
	return s
}

// client is one TCP connection from a chosen loopback address.
type client struct {
	net.Conn
	br *bufio.Reader
}

func (s *server) dial(t *testing.T, from string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", s.addr)
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skipf("cannot dial from %s: on Linux all of 127.0.0.0/8 is loopback", from)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second)) // a guard against a hang
	t.Cleanup(func() { c.Close() })
	return &client{Conn: c, br: bufio.NewReader(c)}
}

func (c *client) send(path string) error {
	_, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: parley.test\r\n\r\n")
	return err
}

// read returns the next response's status and body, or the error of a
// connection the server closed.
func (c *client) read() (int, string, error) {
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, "", err
	}
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

func (c *client) get(path string) (int, string, error) {
	if err := c.send(path); err != nil {
		return 0, "", err
	}
	return c.read()
}

// keepAlive makes a request on c and waits until the server holds c as an
// idle keep-alive connection.
func (s *server) keepAlive(t *testing.T, c *client) {
	t.Helper()
	if status, _, err := c.get("/healthz"); err != nil || status != 200 {
		t.Fatalf("GET /healthz: %d %v", status, err)
	}
	<-s.idled
}

func wantHealthy(t *testing.T, c *client) {
	t.Helper()
	if status, body, err := c.get("/healthz"); err != nil || status != 200 || body != `{"status":"ok"}` {
		t.Fatalf("GET /healthz from another client: %d %q %v", status, body, err)
	}
}

func wantClosed(t *testing.T, c *client, what string) {
	t.Helper()
	if status, _, err := c.get("/healthz"); err == nil {
		t.Fatalf("%s answered %d; want it closed", what, status)
	}
}

// One address opens more idle connections than its cap: its oldest ones
// are closed to stay within it, and once all its connections are busy
// (parked long polls) the next is refused; another client is served
// throughout.
func TestPerClientCapOverHTTP(t *testing.T) {
	t.Parallel()
	s := serve(t, connlimit.Options{PerClient: 3})
	var idle []*client
	for range 5 {
		c := s.dial(t, "127.0.0.21")
		s.keepAlive(t, c)
		idle = append(idle, c)
	}
	wantClosed(t, idle[0], "the oldest idle connection over the cap")
	wantClosed(t, idle[1], "the second oldest idle connection over the cap")
	for _, c := range idle[2:] {
		s.keepAlive(t, c)
	}
	wantHealthy(t, s.dial(t, "127.0.0.22"))

	// Three long polls from one address fill its cap with busy connections.
	polls := idle[2:]
	for _, c := range polls {
		if err := c.send("/park"); err != nil {
			t.Fatal(err)
		}
		<-s.hijacked
	}
	over := s.dial(t, "127.0.0.21")
	status, body, err := over.read()
	if err != nil || status != http.StatusTooManyRequests ||
		body != `{"error":"too many open connections from your address; close some and retry"}` {
		t.Fatalf("a connection over the cap with nothing idle: %d %q %v", status, body, err)
	}
	wantHealthy(t, s.dial(t, "127.0.0.22"))
	close(s.release)
	for _, c := range polls {
		if status, body, err := c.read(); err != nil || status != 200 || body != "answered" {
			t.Fatalf("parked long poll: %d %q %v", status, body, err)
		}
	}
}

// The budget filled with idle keep-alive connections and connections that
// sent nothing: a new /healthz is answered because the oldest idle ones are
// closed for it. Parked long polls count but are not cut.
func TestHealthzAnswersWithTheBudgetFull(t *testing.T) {
	t.Parallel()
	// Pressure from 9 of 10.
	s := serve(t, connlimit.Options{Budget: 10})
	var polls []*client
	for range 3 {
		c := s.dial(t, "127.0.0.31")
		if err := c.send("/park"); err != nil {
			t.Fatal(err)
		}
		<-s.hijacked
		polls = append(polls, c)
	}
	var idle []*client
	for range 3 {
		c := s.dial(t, "127.0.0.32")
		s.keepAlive(t, c)
		idle = append(idle, c)
	}
	for range 4 { // silent: accepted, nothing sent
		idle = append(idle, s.dial(t, "127.0.0.33"))
	}
	health := s.dial(t, "127.0.0.34")
	wantHealthy(t, health)
	// 3 parked + 7 idle reached the mark at the 9th; the 10th and /healthz
	// each closed the oldest idle one.
	wantClosed(t, idle[0], "the oldest idle connection")
	wantClosed(t, idle[1], "the second oldest idle connection")
	st := s.limits.Stats()
	if st.Open != 9 || st.Cut != 2 || st.RefusedBudget != 0 {
		t.Fatalf("stats %+v, want 9 open (at the mark), 2 cut, none refused", st)
	}
	close(s.release)
	for _, c := range polls {
		if status, body, err := c.read(); err != nil || status != 200 || body != "answered" {
			t.Fatalf("parked long poll under pressure: %d %q %v", status, body, err)
		}
		s.keepAlive(t, c) // handed back to the server and served again
	}
	// Every connection counted exactly once, parked ones included: none
	// left once the server has closed them all.
	s.stop()
	if st := s.limits.Stats(); st.Open != 0 || st.Idle != 0 {
		t.Fatalf("after the server closed: %+v", st)
	}
}

// A parked long poll answered with the client's next request already sent
// (pipelining) comes back through park's wrapper; the Listener still knows
// it, so it is idle again afterwards and counted once.
func TestPipelinedAfterParkIsTracked(t *testing.T) {
	t.Parallel()
	s := serve(t, connlimit.Options{PerClient: 1})
	c := s.dial(t, "127.0.0.41")
	if _, err := io.WriteString(c, "GET /park HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-s.hijacked
	close(s.release)
	for _, want := range []string{"answered", `{"status":"ok"}`} {
		if _, body, err := c.read(); err != nil || body != want {
			t.Fatalf("body %q, %v; want %q", body, err, want)
		}
	}
	<-s.idled
	if st := s.limits.Stats(); st.Open != 1 || st.Idle != 1 {
		t.Fatalf("stats %+v, want the one connection open and idle", st)
	}
	// Idle, so a second connection from the address takes its place.
	wantHealthy(t, s.dial(t, "127.0.0.41"))
	if _, _, err := c.read(); err == nil {
		t.Fatalf("the idle connection over the cap: %v", err)
	}
}
