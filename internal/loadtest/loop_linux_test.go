//go:build linux

package loadtest

import (
	"net"
	"testing"
	"time"
)

func init() {
	engines = append(engines, engine{EngineLoop, newLoopTestConn})
}

// loopTestConn runs a loop of one connection whose visitor makes the
// requests the test asks for, one at a time: the wire tests then drive the
// loop exactly as they drive a wireConn.
type loopTestConn struct {
	l       *loop
	reqs    chan loopReq
	answers chan result
}

type loopReq struct {
	method, target string
	body           []byte
}

func newLoopTestConn(t *testing.T, addr string, local net.Addr, timeout time.Duration) testConn {
	t.Helper()
	l, err := newLoop(addr, testHost, timeout)
	if err != nil {
		t.Fatal(err)
	}
	tc := &loopTestConn{l: l, reqs: make(chan loopReq), answers: make(chan result, 1)}
	c := l.add(local)
	c.visit = func() {
		for r := range tc.reqs {
			status, body, err := c.do(r.method, r.target, r.body)
			tc.answers <- result{status, body, err}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run()
	}()
	t.Cleanup(func() {
		close(tc.reqs) // the visitor finishes, and with it the loop;
		tc.l.stop()    // and a request still in flight is cut off
		within(t, done, "the loop ending")
		l.close()
	})
	return tc
}

func (tc *loopTestConn) do(method, target string, body []byte) (int, []byte, error) {
	tc.reqs <- loopReq{method, target, body}
	r := <-tc.answers
	return r.status, r.body, r.err
}

func (tc *loopTestConn) interrupt() { tc.l.stop() }
