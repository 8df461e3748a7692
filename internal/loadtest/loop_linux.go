//go:build linux

package loadtest

import (
	"errors"
	"io"
	"iter"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// haveLoop: this system has the event loop.
const haveLoop = true

// loop drives many visitors' connections from one goroutine with epoll,
// the way wrk does. Why: the load tool shares this machine's two cores
// with the server it measures, and with a goroutine per connection each
// answer costs the tool a read that finds nothing yet, a park, a wake-up
// through the runtime's poller and the read again; wrk, which waits in one
// epoll_wait for whichever connection is ready and reads it once, spent a
// quarter less CPU a request on the same server (docs/benchmarks.md).
//
// The visitors keep their plain sequential code (visitor.round): each runs
// as a coroutine (iter.Pull), and its conn's do hands the request to the
// loop and switches back, to be resumed with the answer. A switch costs far
// less than a goroutine's trip through the scheduler, and only one visitor
// runs at a time, on the loop's goroutine.
type loop struct {
	epfd    int
	wake    [2]int // a pipe: stop writes to it, so that epoll_wait returns
	addr    syscall.Sockaddr
	host    string // the Host header
	timeout time.Duration

	conns []*loopConn
	ready []*loopConn // answered (or failed) and waiting to be resumed
	spare []*loopConn // resumeReady's other array
	live  int         // visitors not yet finished

	stopped atomic.Bool
	mu      sync.Mutex // guards closed, so stop never writes to a closed pipe
	closed  bool
}

// loopConn is one visitor's connection in the loop. Its fields belong to
// the loop's goroutine (a visitor's coroutine runs on it too).
type loopConn struct {
	l     *loop
	id    int32
	local syscall.Sockaddr // source address; nil for the default
	visit func()           // the visitor: calls do until it is done

	fd        int // -1: no connection
	state     connState
	reused    bool // the request went out on a kept-alive connection
	resent    bool // and was sent again on a new one
	pendingIn bool // the socket reported input while no answer was awaited
	deadline  time.Time
	out       []byte // the request
	written   int
	in        []byte // what was read of the answer; reused
	used      int    // how much of in the last answer took
	chunks    []byte // a chunked body, decoded; reused

	yield func(struct{}) bool // the visitor's coroutine
	next  func() (struct{}, bool)
	done  bool

	status int // the answer, for do
	body   []byte
	err    error
}

type connState uint8

const (
	idle       connState = iota // no request out
	connecting                  // the request waits for the connection
	writing                     // the request waits for room in the socket
	reading                     // the answer is awaited
)

// errTimedOut: no answer within the loop's timeout.
var errTimedOut = os.ErrDeadlineExceeded

// newLoop makes a loop for connections to addr (host:port, a literal IP
// address or localhost), sending Host: host.
func newLoop(addr, host string, timeout time.Duration) (*loop, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &loop{host: host, timeout: timeout, addr: sockaddr(ta.IP, ta.Port), epfd: -1}
	if l.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := syscall.Pipe2(l.wake[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(l.epfd)
		return nil, os.NewSyscallError("pipe2", err)
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: -1}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, l.wake[0], &ev); err != nil {
		l.close()
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return l, nil
}

func sockaddr(ip net.IP, port int) syscall.Sockaddr {
	if ip4 := ip.To4(); ip4 != nil {
		sa := &syscall.SockaddrInet4{Port: port}
		copy(sa.Addr[:], ip4)
		return sa
	}
	sa := &syscall.SockaddrInet6{Port: port}
	copy(sa.Addr[:], ip.To16())
	return sa
}

// add makes a connection from local (nil: the default source address);
// its visit function must be set before run.
func (l *loop) add(local net.Addr) *loopConn {
	c := &loopConn{l: l, id: int32(len(l.conns)), fd: -1}
	if a, ok := local.(*net.TCPAddr); ok && a != nil {
		c.local = sockaddr(a.IP, a.Port)
	}
	l.conns = append(l.conns, c)
	return c
}

// do sends one request and returns the status and the body, which stays
// valid until the next call, as wireConn's do does (and with its rule
// for a kept-alive connection found closed). It runs in the visitor's
// coroutine: the loop sends the request and resumes it with the answer.
func (c *loopConn) do(method, target string, body []byte) (int, []byte, error) {
	if c.l.stopped.Load() {
		return 0, nil, net.ErrClosed
	}
	c.out = appendRequest(c.out[:0], method, target, c.l.host, body)
	if !c.yield(struct{}{}) {
		return 0, nil, net.ErrClosed
	}
	if c.err != nil {
		return 0, nil, c.err
	}
	return c.status, c.body, nil
}

// stop ends the run: requests in flight fail, later ones are not sent.
// Safe from any goroutine, also after the loop has ended.
func (l *loop) stop() {
	if l.stopped.Swap(true) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		syscall.Write(l.wake[1], []byte{1})
	}
}

// close releases the loop's descriptors once run has returned.
func (l *loop) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	syscall.Close(l.wake[0])
	syscall.Close(l.wake[1])
	syscall.Close(l.epfd)
}

// run drives every visitor until all are done or stop is called.
func (l *loop) run() {
	for _, c := range l.conns {
		c.next, _ = iter.Pull(func(yield func(struct{}) bool) {
			c.yield = yield
			c.visit()
		})
		l.live++
		l.ready = append(l.ready, c)
	}
	events := make([]syscall.EpollEvent, 256)
	lastScan := time.Now()
	for {
		l.resumeReady()
		if l.stopped.Load() {
			l.end()
			return
		}
		if l.live == 0 {
			return
		}
		n, err := syscall.EpollWait(l.epfd, events, 100)
		if err != nil && err != syscall.EINTR {
			panic(os.NewSyscallError("epoll_wait", err)) // the loop's own descriptor: a bug, not the server
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd < 0 {
				continue // the wake pipe: stopped, seen above
			}
			c := l.conns[ev.Fd]
			if int(ev.Pad) != c.fd {
				continue // for a connection already closed and replaced
			}
			l.event(c, ev.Events)
		}
		if now := time.Now(); now.Sub(lastScan) >= 100*time.Millisecond {
			lastScan = now
			for _, c := range l.conns {
				if c.state != idle && now.After(c.deadline) {
					l.finish(c, answer{}, errTimedOut)
				}
			}
		}
	}
}

// resumeReady hands each answer to its visitor, which makes its next
// request or finishes. A queue, not a call from finish, so that a server
// refusing every connection at once cannot grow the stack.
func (l *loop) resumeReady() {
	// Resuming one may queue it again (a request that fails at once):
	// batch after batch, the two arrays taking turns, so the queue never
	// holds more than the connections.
	for len(l.ready) > 0 && !l.stopped.Load() {
		batch := l.ready
		l.ready = l.spare[:0]
		for _, c := range batch {
			if l.stopped.Load() {
				break // end resumes the rest
			}
			if _, ok := c.next(); !ok {
				l.closeConn(c)
				c.done = true
				l.live--
				continue
			}
			l.start(c)
		}
		l.spare = batch[:0]
	}
}

// end fails every request in flight and lets each visitor see it and
// finish (do fails from now on without sending anything).
func (l *loop) end() {
	l.ready = l.ready[:0]
	for _, c := range l.conns {
		l.closeConn(c)
	}
	for _, c := range l.conns {
		if c.done {
			continue
		}
		c.state, c.status, c.body, c.err = idle, 0, nil, net.ErrClosed
		for {
			if _, ok := c.next(); !ok {
				break
			}
		}
		c.done = true
		l.live--
	}
}

func (l *loop) start(c *loopConn) {
	if l.stopped.Load() { // do checks too; nothing goes out once the run is over
		l.finish(c, answer{}, net.ErrClosed)
		return
	}
	c.written, c.resent = 0, false
	c.deadline = time.Now().Add(l.timeout)
	c.reused = c.fd >= 0
	if c.fd < 0 {
		l.dial(c)
		return
	}
	// What is left of the last answer, if anything, belongs to this one.
	c.in = append(c.in[:0], c.in[c.used:]...)
	c.used = 0
	l.write(c)
}

func (l *loop) dial(c *loopConn) {
	c.in, c.used, c.pendingIn, c.written = c.in[:0], 0, false, 0
	family := syscall.AF_INET
	if _, ok := l.addr.(*syscall.SockaddrInet6); ok {
		family = syscall.AF_INET6
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		l.finish(c, answer{}, os.NewSyscallError("socket", err))
		return
	}
	// As net.Dial does: a request goes out whole at once.
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	if c.local != nil {
		if err := syscall.Bind(fd, c.local); err != nil {
			syscall.Close(fd)
			l.finish(c, answer{}, os.NewSyscallError("bind", err))
			return
		}
	}
	if err := syscall.Connect(fd, l.addr); err != nil && err != syscall.EINPROGRESS {
		syscall.Close(fd)
		l.finish(c, answer{}, os.NewSyscallError("connect", err))
		return
	}
	// Edge-triggered, registered once for all the connection's requests:
	// no epoll_ctl per request, and an event only when something changes.
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLOUT | syscall.EPOLLRDHUP | epollET, Fd: c.id, Pad: int32(fd)}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		syscall.Close(fd)
		l.finish(c, answer{}, os.NewSyscallError("epoll_ctl", err))
		return
	}
	c.fd, c.state = fd, connecting
}

// epollET is syscall.EPOLLET, which the package declares as a negative int.
const epollET = 1 << 31

const inEvents = syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLHUP | syscall.EPOLLERR
const outEvents = syscall.EPOLLOUT | syscall.EPOLLHUP | syscall.EPOLLERR

func (l *loop) event(c *loopConn, ev uint32) {
	switch c.state {
	case connecting:
		if ev&outEvents == 0 {
			return
		}
		if errno, err := syscall.GetsockoptInt(c.fd, syscall.SOL_SOCKET, syscall.SO_ERROR); err != nil || errno != 0 {
			if err == nil {
				err = syscall.Errno(errno)
			}
			l.finish(c, answer{}, os.NewSyscallError("connect", err))
			return
		}
		if ev&inEvents != 0 {
			c.pendingIn = true
		}
		l.write(c)
	case writing:
		if ev&inEvents != 0 {
			c.pendingIn = true
		}
		if ev&outEvents != 0 {
			l.write(c)
		}
	case reading:
		if ev&inEvents != 0 {
			l.read(c)
		}
	default:
		// Edge-triggered: an input event while no answer is awaited is
		// not reported again, so it is remembered for the next request.
		if ev&inEvents != 0 {
			c.pendingIn = true
		}
	}
}

func (l *loop) write(c *loopConn) {
	for c.written < len(c.out) {
		n, err := syscall.Write(c.fd, c.out[c.written:])
		switch {
		case err == syscall.EAGAIN:
			c.state = writing
			return
		case err == syscall.EINTR:
			continue
		case err != nil:
			l.broken(c, err)
			return
		}
		c.written += n
	}
	c.state = reading
	// Bytes already read, or input seen meanwhile: no event will come
	// for them.
	if len(c.in) > 0 && l.parse(c, false) {
		return
	}
	if c.pendingIn {
		c.pendingIn = false
		l.read(c)
	}
}

// read reads until the answer is whole or the socket is empty: with an
// edge-triggered descriptor, input left unread would not be reported
// again.
func (l *loop) read(c *loopConn) {
	for {
		if len(c.in) == cap(c.in) {
			c.in = slices.Grow(c.in, max(cap(c.in), 4096))
		}
		n, err := syscall.Read(c.fd, c.in[len(c.in):cap(c.in)])
		switch {
		case err == syscall.EAGAIN:
			return
		case err == syscall.EINTR:
			continue
		case err != nil:
			l.broken(c, err)
			return
		}
		c.in = c.in[:len(c.in)+n]
		if n == 0 { // the end of the connection
			if len(c.in) == 0 {
				l.broken(c, io.EOF)
			} else if !l.parse(c, true) {
				l.finish(c, answer{}, errMalformed) // parseAnswer never waits at EOF; this is only a guard
			}
			return
		}
		if l.parse(c, false) {
			return
		}
	}
}

// parse tries to complete the answer from what was read; false while
// more is needed.
func (l *loop) parse(c *loopConn, atEOF bool) bool {
	a, err := parseAnswer(c.in, atEOF, &c.chunks)
	if err == errIncomplete {
		return false
	}
	if err == nil {
		c.used = a.size
		if a.closing {
			l.closeConn(c)
		}
	}
	l.finish(c, a, err)
	return true
}

// broken: the connection failed before an answer. On a kept-alive
// connection, before any byte of the answer, that is the server having
// closed it while idle, and the request goes once more on a new one.
func (l *loop) broken(c *loopConn, err error) {
	l.closeConn(c)
	if c.reused && !c.resent && len(c.in) == 0 {
		c.resent = true
		l.dial(c)
		return
	}
	if errors.Is(err, io.EOF) || err == syscall.ECONNRESET || err == syscall.EPIPE {
		err = errIdleClosed
	}
	l.finish(c, answer{}, err)
}

// finish ends the request with an answer or an error and queues its
// visitor to be resumed.
func (l *loop) finish(c *loopConn, a answer, err error) {
	if err != nil {
		l.closeConn(c)
		a = answer{}
	}
	c.state, c.status, c.body, c.err = idle, a.status, a.body, err
	l.ready = append(l.ready, c)
}

func (l *loop) closeConn(c *loopConn) {
	if c.fd >= 0 {
		syscall.Close(c.fd) // which also takes it out of the epoll set
		c.fd = -1
	}
}
