//go:build !linux

package loadtest

import (
	"errors"
	"net"
	"time"
)

// haveLoop: the event loop (loop_linux.go) uses epoll; elsewhere every
// visitor has a goroutine and a wireConn.
const haveLoop = false

type loop struct{}

type loopConn struct{ visit func() }

func newLoop(addr, host string, timeout time.Duration) (*loop, error) {
	return nil, errors.New("the event loop needs Linux (epoll)")
}

func (l *loop) add(local net.Addr) *loopConn { return &loopConn{} }
func (l *loop) run()                         {}
func (l *loop) stop()                        {}
func (l *loop) close()                       {}

func (c *loopConn) do(method, target string, body []byte) (int, []byte, error) {
	return 0, nil, net.ErrClosed
}
