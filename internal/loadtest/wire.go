package loadtest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// wireConn is one visitor's keep-alive HTTP/1.1 connection, spoken
// directly: the request is written from bytes built once, and the
// response read with the little parsing HTTP/1.1 needs (status line,
// Content-Length or chunked, Connection: close).
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
	r       *bufio.Reader
	out     []byte // the request being written
	body    []byte // the last response body; reused
}

func newWireConn(addr, host string, local net.Addr, timeout time.Duration) *wireConn {
	return &wireConn{addr: addr, host: host, local: local, timeout: timeout}
}

var errMalformed = errors.New("malformed HTTP response")

// do sends one request and returns the status and the body, which stays
// valid until the next call. When a kept-alive connection ends before a
// byte of the answer — the server closed it while it sat idle — the
// request is sent once more on a new connection. (net/http resends only
// what it knows to be safe to repeat; a load tool's chat sent twice is
// harmless.)
func (w *wireConn) do(method, target string, body []byte) (int, []byte, error) {
	w.out = w.out[:0]
	w.out = append(w.out, method...)
	w.out = append(w.out, ' ')
	w.out = append(w.out, target...)
	w.out = append(w.out, " HTTP/1.1\r\nHost: "...)
	w.out = append(w.out, w.host...)
	w.out = append(w.out, "\r\nUser-Agent: parley-load\r\n"...)
	if body != nil {
		w.out = append(w.out, "Content-Type: application/json\r\nContent-Length: "...)
		w.out = strconv.AppendInt(w.out, int64(len(body)), 10)
		w.out = append(w.out, "\r\n"...)
	}
	w.out = append(w.out, "\r\n"...)
	w.out = append(w.out, body...)

	reused := w.c != nil
	status, err := w.roundTrip()
	if err != nil && reused && errors.Is(err, errIdleClosed) {
		status, err = w.roundTrip()
	}
	if err != nil {
		w.close()
		return 0, nil, err
	}
	return status, w.body, nil
}

// errIdleClosed: the server closed the connection before answering a
// byte, as it may do to an idle keep-alive connection.
var errIdleClosed = errors.New("connection closed before the response")

func (w *wireConn) roundTrip() (int, error) {
	w.mu.Lock()
	stopped := w.stopped
	w.mu.Unlock()
	if stopped {
		return 0, net.ErrClosed
	}
	if w.c == nil {
		d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: w.local}
		c, err := d.Dial("tcp", w.addr)
		if err != nil {
			return 0, err
		}
		w.mu.Lock()
		if w.stopped {
			w.mu.Unlock()
			c.Close()
			return 0, net.ErrClosed
		}
		w.c = c
		w.mu.Unlock()
		if w.r == nil {
			w.r = bufio.NewReaderSize(c, 8192)
		} else {
			w.r.Reset(c)
		}
	}
	// Under mu, so an interrupt cannot fall between the check and the
	// deadline it would otherwise be overwritten by.
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return 0, net.ErrClosed
	}
	w.c.SetDeadline(time.Now().Add(w.timeout))
	w.mu.Unlock()
	if _, err := w.c.Write(w.out); err != nil {
		w.close()
		return 0, errIdleClosed
	}
	line, err := w.r.ReadSlice('\n')
	if err != nil {
		w.close()
		if len(line) == 0 && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)) {
			return 0, errIdleClosed
		}
		return 0, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, errMalformed
	}
	status := 0
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return 0, errMalformed
		}
		status = status*10 + int(d-'0')
	}
	length, chunked, closing := -1, false, false
	for {
		h, err := w.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return 0, errMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, errMalformed
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	w.body = w.body[:0]
	switch {
	case status < 200 || status == 204 || status == 304:
		// No body, whatever the headers say (RFC 9112, section 6.3).
	case chunked:
		err = w.readChunked()
	case length >= 0:
		w.body = grow(w.body, length)
		_, err = io.ReadFull(w.r, w.body)
	default: // no length: the body runs to the end of the connection
		var b bytes.Buffer
		_, err = b.ReadFrom(w.r)
		w.body, closing = b.Bytes(), true
	}
	if err != nil {
		return 0, err
	}
	if closing {
		w.close()
	}
	return status, nil
}

func (w *wireConn) readChunked() error {
	for {
		line, err := w.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 32)
		if err != nil || n < 0 {
			return errMalformed
		}
		if n == 0 {
			// Trailers, then the empty line.
			for {
				t, err := w.r.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(t, "\r\n")) == 0 {
					return nil
				}
			}
		}
		start := len(w.body)
		w.body = grow(w.body, start+int(n))
		if _, err := io.ReadFull(w.r, w.body[start:]); err != nil {
			return err
		}
		if _, err := w.r.Discard(2); err != nil { // the chunk's CRLF
			return err
		}
	}
}

// grow returns b with length n, reusing its array when it is big enough.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return append(b[:cap(b)], make([]byte, n-cap(b))...)
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
