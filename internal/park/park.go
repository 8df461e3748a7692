// Package park lets an HTTP/1.1 request that will wait a long time (a
// widget long poll) give its connection's resources back while it waits.
//
// net/http serves each connection with a goroutine and, while a handler
// runs, a second goroutine watching for the client to leave, a 4 KB read
// buffer, a 4 KB write buffer and a 2 KB response buffer: about 25 KB that
// a handler blocked in a wait holds for nothing. A parked request instead
// takes the connection over (Hijack), keeps only the socket, a small
// goroutine and the caller's wait, and when the answer is ready writes it
// and hands the connection back to the http.Server through the Listener,
// which serves the client's next request on it as on a new connection. The
// client sees an ordinary keep-alive response.
//
// What a parked request gives up: net/http no longer notices the client
// leaving while it waits (the wait ends at its deadline instead), and a
// connection handed back starts again with the server's ReadHeaderTimeout
// rather than its IdleTimeout before the next request.
package park

import (
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// writeTimeout bounds writing a parked request's answer.
const writeTimeout = 10 * time.Second

// Listener is the server's listener, which also yields the connections of
// answered parked requests so that the server reads their next request.
type Listener struct {
	net.Listener
	accepted chan accepted
	back     chan net.Conn
	closed   chan struct{}
	once     sync.Once
}

type accepted struct {
	c   net.Conn
	err error
}

// NewListener wraps l. Serve the http.Server on the result.
func NewListener(l net.Listener) *Listener {
	pl := &Listener{
		Listener: l,
		accepted: make(chan accepted),
		back:     make(chan net.Conn),
		closed:   make(chan struct{}),
	}
	go pl.acceptLoop()
	return pl
}

func (l *Listener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		select {
		case l.accepted <- accepted{c, err}:
		case <-l.closed:
			if c != nil {
				c.Close()
			}
			return
		}
	}
}

// Accept returns the next new or handed-back connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.back:
		return c, nil
	case a := <-l.accepted:
		return a.c, a.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close closes the listener; connections handed back afterwards are closed.
func (l *Listener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() {
		close(l.closed)
		err = l.Listener.Close()
	})
	return err
}

// giveBack hands c to the server; false if the listener is closed.
func (l *Listener) giveBack(c net.Conn) bool {
	select {
	case l.back <- c:
		return true
	case <-l.closed:
		return false
	}
}

// Lot parks requests. The zero value and nil park nothing (Park returns
// false), so handlers work unchanged under httptest or without a Listener.
type Lot struct {
	ln *Listener
	wg sync.WaitGroup
}

// NewLot parks requests whose connections came from ln.
func NewLot(ln *Listener) *Lot { return &Lot{ln: ln} }

// Tracker is implemented by a ResponseWriter wrapper that counts and logs
// requests when the handler returns: Parked tells it that the handler has
// taken the connection over, and returns the function to call with the
// answer's status once it is written.
type Tracker interface {
	Parked() (done func(status int))
}

// Park takes the request's connection over, if it can, and returns true: it
// then runs answer on a new goroutine, writes what answer wrote to its
// ResponseWriter (which starts with the headers already set on w), and
// hands the connection back to the server. The handler must return at once
// without touching w again. It returns false, having done nothing, for
// requests it cannot park (HTTP/2, TLS, a writer that cannot hijack, no
// Listener): the caller then waits and answers as usual.
func (l *Lot) Park(w http.ResponseWriter, r *http.Request, answer func(w http.ResponseWriter)) bool {
	if l == nil || l.ln == nil || r.ProtoMajor != 1 || r.TLS != nil {
		return false
	}
	header := w.Header().Clone()
	// Counted before the connection leaves the server's books, so that a
	// Shutdown that no longer waits for it is followed by a Wait that does.
	l.wg.Add(1)
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		l.wg.Done()
		return false
	}
	done := func(int) {}
	if t, ok := w.(Tracker); ok {
		done = t.Parked()
	}
	// Bytes the client sent after this request (pipelining) belong to the
	// next one; the server must read them first.
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		conn = &prefixConn{Conn: conn, prefix: bytes.Clone(b)}
	}
	keepAlive := r.ProtoAtLeast(1, 1) && !r.Close
	method, path := r.Method, r.URL.Path // not r: the wait should not keep the request alive
	go func() {
		defer l.wg.Done()
		defer func() {
			// As net/http does with a handler's panic: log it and drop
			// the connection.
			if v := recover(); v != nil {
				slog.Error("panic answering a parked request", "method", method, "path", path, "panic", v)
				conn.Close()
				done(http.StatusInternalServerError)
			}
		}()
		rw := &response{header: header, status: http.StatusOK}
		answer(rw)
		if l.write(conn, rw, keepAlive) && keepAlive && l.ln.giveBack(conn) {
			done(rw.status)
			return
		}
		conn.Close()
		done(rw.status)
	}()
	return true
}

// Wait waits for the parked requests to be answered (at shutdown, after
// the waits were told to end).
func (l *Lot) Wait() {
	if l != nil {
		l.wg.Wait()
	}
}

func (l *Lot) write(conn net.Conn, rw *response, keepAlive bool) bool {
	h := rw.header
	h.Set("Content-Length", strconv.Itoa(rw.body.Len()))
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	if !keepAlive {
		h.Set("Connection", "close")
	}
	var b bytes.Buffer
	b.Grow(256 + rw.body.Len())
	b.WriteString("HTTP/1.1 ")
	b.WriteString(strconv.Itoa(rw.status))
	b.WriteByte(' ')
	b.WriteString(http.StatusText(rw.status))
	b.WriteString("\r\n")
	if err := h.Write(&b); err != nil {
		return false
	}
	b.WriteString("\r\n")
	b.Write(rw.body.Bytes())
	if conn.SetWriteDeadline(time.Now().Add(writeTimeout)) != nil {
		return false
	}
	if _, err := conn.Write(b.Bytes()); err != nil {
		return false
	}
	// The server sets its own deadlines for the next request.
	return conn.SetDeadline(time.Time{}) == nil
}

// response collects a parked request's answer.
type response struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *response) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}

// prefixConn reads prefix before the connection.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(b, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// NetConn returns the connection underneath, for ConnState hooks that look
// for their own wrapper (package connlimit).
func (c *prefixConn) NetConn() net.Conn { return c.Conn }
