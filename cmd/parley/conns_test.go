package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawConn is a client connection from a chosen loopback address that sends
// nothing until asked.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

func dialFrom(t *testing.T, inst *instance, from string) *rawConn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", strings.TrimPrefix(inst.base, "http://"))
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skipf("cannot dial from %s: on Linux all of 127.0.0.0/8 is loopback", from)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second)) // a guard against a hang
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, br: bufio.NewReader(c)}
}

// healthz asks GET /healthz on c; an error means the server closed c.
func (c *rawConn) healthz() (int, error) {
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: parley.test\r\n\r\n"); err != nil {
		return 0, err
	}
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, res.Body)
	return res.StatusCode, res.Body.Close()
}

func wantAnswer(t *testing.T, c *rawConn, what string) {
	t.Helper()
	if status, err := c.healthz(); err != nil || status != http.StatusOK {
		t.Fatalf("%s: GET /healthz = %d, %v; want 200", what, status, err)
	}
}

func wantCut(t *testing.T, c *rawConn, what string) {
	t.Helper()
	if status, err := c.healthz(); err == nil {
		t.Fatalf("%s answered %d; want it closed by the server", what, status)
	}
}

// Idle connections from one address past PARLEY_MAX_CONNS_PER_IP: its oldest
// is closed, and another client is served.
func TestServeCapsConnectionsPerIP(t *testing.T) {
	t.Parallel()
	inst := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_MAX_CONNS_PER_IP": "2"})
	first, second, third := dialFrom(t, inst, "127.0.0.51"), dialFrom(t, inst, "127.0.0.51"), dialFrom(t, inst, "127.0.0.51")
	// Answered, so accepted: the oldest idle one made room for it before.
	wantAnswer(t, third, "the third connection from one address")
	wantCut(t, first, "the oldest idle connection over the per-IP cap")
	wantAnswer(t, second, "the second connection from the address")
	wantAnswer(t, dialFrom(t, inst, "127.0.0.52"), "another client")
}

// Connections that sent nothing fill PARLEY_MAX_CONNS: a new /healthz is
// answered, the oldest idle connection having been closed for it.
func TestServeHealthzWithTheBudgetFull(t *testing.T) {
	t.Parallel()
	inst := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_MAX_CONNS": "5"})
	var silent []*rawConn
	for i := range 4 { // pressure from 4 of 5
		silent = append(silent, dialFrom(t, inst, fmt.Sprintf("127.0.0.%d", 61+i)))
	}
	wantAnswer(t, dialFrom(t, inst, "127.0.0.69"), "a health check with the budget full")
	wantCut(t, silent[0], "the oldest idle connection")
	wantAnswer(t, silent[1], "the next one, within the budget")
}
