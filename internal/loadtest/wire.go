package loadtest

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"time"
)

// wireConn is one visitor's keep-alive HTTP/1.1 connection, spoken
// directly: the request is written from bytes built once, and the
// response read with the little parsing HTTP/1.1 needs (parseAnswer).
// It is the engine of the long-poll visitors everywhere, and of all
// visitors where the event loop (loop_linux.go) is not available.
//
// Why not net/http's client: on a 2-core machine the load tool shares the
// CPU with the server it measures, and net/http's client spends about as
// much CPU per request as a lean server does; a C tool like wrk measured
// the same server twice as fast (docs/benchmarks.md). A lean client leaves
// the cores to the server, which is what the numbers should describe.
type wireConn struct {
	addr    string   // host:port to dial
	host    string   // the Host header
	local   net.Addr // source address, nil for the default
	timeout time.Duration

	mu      sync.Mutex // guards c and stopped against interrupt, from another goroutine
	stopped bool
	c       net.Conn // written only by the goroutine making the requests
	out     []byte   // the request being written
	in      []byte   // what was read of the answer; reused
	used    int      // how much of in the last answer took
	chunks  []byte   // a chunked body, decoded; reused
}

func newWireConn(addr, host string, local net.Addr, timeout time.Duration) *wireConn {
	return &wireConn{addr: addr, host: host, local: local, timeout: timeout}
}

// do sends one request and returns the status and the body, which stays
// valid until the next call. When a kept-alive connection ends before a
// byte of the answer — the server closed it while it sat idle — the
// request is sent once more on a new connection. (net/http resends only
// what it knows to be safe to repeat; a load tool's chat sent twice is
// harmless.)
func (w *wireConn) do(method, target string, body []byte) (int, []byte, error) {
	w.out = appendRequest(w.out[:0], method, target, w.host, body)
	reused := w.c != nil
	a, err := w.roundTrip()
	if err != nil && reused && errors.Is(err, errIdleClosed) {
		a, err = w.roundTrip()
	}
	if err != nil {
		w.close()
		return 0, nil, err
	}
	return a.status, a.body, nil
}

// errIdleClosed: the server closed the connection before answering a
// byte, as it may do to an idle keep-alive connection.
var errIdleClosed = errors.New("connection closed before the response")

func (w *wireConn) roundTrip() (answer, error) {
	w.mu.Lock()
	stopped := w.stopped
	w.mu.Unlock()
	if stopped {
		return answer{}, net.ErrClosed
	}
	if w.c == nil {
		d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: w.local}
		c, err := d.Dial("tcp", w.addr)
		if err != nil {
			return answer{}, err
		}
		w.mu.Lock()
		if w.stopped {
			w.mu.Unlock()
			c.Close()
			return answer{}, net.ErrClosed
		}
		w.c = c
		w.mu.Unlock()
		w.in, w.used = w.in[:0], 0
	}
	// Under mu, so an interrupt cannot fall between the check and the
	// deadline it would otherwise be overwritten by.
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return answer{}, net.ErrClosed
	}
	w.c.SetDeadline(time.Now().Add(w.timeout))
	w.mu.Unlock()
	if _, err := w.c.Write(w.out); err != nil {
		w.close()
		return answer{}, errIdleClosed
	}
	// What is left of the last answer, if anything, belongs to this one.
	w.in = append(w.in[:0], w.in[w.used:]...)
	w.used = 0
	for {
		a, err := parseAnswer(w.in, false, &w.chunks)
		if err == errIncomplete {
			if len(w.in) == cap(w.in) {
				w.in = slices.Grow(w.in, max(cap(w.in), 8192))
			}
			var n int
			n, err = w.c.Read(w.in[len(w.in):cap(w.in)])
			w.in = w.in[:len(w.in)+n]
			if n > 0 {
				continue
			}
			if errors.Is(err, io.EOF) {
				a, err = parseAnswer(w.in, true, &w.chunks)
			}
		}
		if err != nil {
			w.close()
			if len(w.in) == 0 && (errors.Is(err, errMalformed) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)) {
				return answer{}, errIdleClosed
			}
			return answer{}, err
		}
		w.used = a.size
		if a.closing {
			w.close()
		}
		return a, nil
	}
}

func (w *wireConn) close() {
	w.mu.Lock()
	if w.c != nil {
		w.c.Close()
		w.c = nil
	}
	w.mu.Unlock()
}

// interrupt ends the request in flight, if any, and any later one: the
// run is over.
func (w *wireConn) interrupt() {
	w.mu.Lock()
	w.stopped = true
	if w.c != nil {
		w.c.SetDeadline(time.Now())
	}
	w.mu.Unlock()
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}
