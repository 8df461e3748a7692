// Package connlimit bounds the TCP connections an HTTP server holds open,
// so that idle connections cannot use up the process's file descriptors
// and a new client (a health check, a visitor) always gets one.
//
// A Listener wraps the server's TCP listener and counts every connection
// it accepts, in total and per client address, from Accept to its final
// Close. It learns from the http.Server (ConnState) which connections are
// idle: accepted or kept alive but not in a request. Two limits apply:
//
//   - Per client: a client address (an IPv6 client: its /64) holds at most
//     PerClient connections. A connection over the cap closes that client's
//     oldest idle one; if the client has none idle (all its connections are
//     in requests or parked), the new one is refused with a 429.
//   - Budget: under pressure, when the connections open reach the high-water
//     mark (nine tenths of the budget), each new connection closes the
//     oldest idle one, whoever's it is; a connection that would pass the
//     budget with nothing idle left to close is refused with a 503.
//
// Connections a handler took over (http.StateHijacked: in Parley the parked
// long polls of package park) count but are never closed here: they end by
// themselves when answered, and the server gets them back through its
// listener as new connections, then idle ones like any other.
package connlimit

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// Options configure a Listener.
type Options struct {
	// Budget is the most connections held open at once; 0 means no budget.
	// Size it from the descriptor limit with Budget.
	Budget int
	// PerClient is the most connections one client address holds open;
	// 0 means no cap.
	PerClient int
	// Exempt reports addresses PerClient does not apply to: reverse proxies,
	// which carry many clients' connections. They count towards the budget.
	Exempt func(netip.Addr) bool
	// Logger says when pressure starts and ends; nil discards.
	Logger *slog.Logger
}

// Listener counts and limits the connections accepted from its embedded
// net.Listener. Serve the http.Server on it (or on a listener that wraps
// it) and set the server's ConnState to the Listener's.
type Listener struct {
	net.Listener
	budget, highWater, lowWater, perClient int
	exempt                                 func(netip.Addr) bool
	log                                    *slog.Logger

	mu        sync.Mutex
	open      int
	idleCount int
	idle      queue // every idle connection, oldest first
	clients   map[netip.Addr]*client
	pressure  *Stats // the counts when pressure began; nil when calm
	stats     Stats  // cumulative Cut and Refused*
}

// client is one client address's connections.
type client struct {
	open int
	idle queue
}

// Stats are a Listener's counts.
type Stats struct {
	Open             int    // connections open now
	Idle             int    // of them, idle (closable under pressure)
	Budget           int    // the most connections open at once; 0 = none
	Cut              uint64 // idle connections closed to make room
	RefusedPerClient uint64 // connections refused over a client's cap (429)
	RefusedBudget    uint64 // connections refused over the budget (503)
}

// New wraps l.
func New(l net.Listener, o Options) *Listener {
	if o.Exempt == nil {
		o.Exempt = func(netip.Addr) bool { return false }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Listener{
		Listener: l, budget: o.Budget, perClient: o.PerClient, exempt: o.Exempt, log: o.Logger,
		// Pressure starts with a tenth of the budget left, so that bursts
		// of new requests find room without waiting for idle ones to go,
		// and ends below three quarters (no log line per connection
		// while the count hovers at the mark).
		highWater: o.Budget - max(o.Budget/10, 1),
		lowWater:  o.Budget * 3 / 4,
		clients:   make(map[netip.Addr]*client),
		idle:      queue{slot: allIdle},
	}
}

// Stats returns the current counts.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Open, s.Idle, s.Budget = l.open, l.idleCount, l.budget
	return s
}

// Accept returns the next connection within the limits. Connections over
// them are answered with a short error response and closed here; the
// caller never sees them.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				// Descriptors ran out below the budget (other files, a
				// budget set too high): free some before net/http
				// retries, a few milliseconds from now.
				l.closeAll(l.cutIdle(reliefOnExhaustion))
			}
			return nil, err
		}
		c, victims, refusal := l.admit(nc)
		l.closeAll(victims)
		if c != nil {
			return c, nil
		}
		refuse(nc, refusal)
	}
}

// reliefOnExhaustion is how many idle connections go when accept finds no
// descriptor left.
const reliefOnExhaustion = 16

// admit counts nc in, or returns the refusal to send it. victims are idle
// connections to close (outside the lock) to make room.
func (l *Listener) admit(nc net.Conn) (c *Conn, victims []*Conn, refusal string) {
	ip := peerIP(nc.RemoteAddr())
	capped := l.perClient > 0 && ip.IsValid() && !l.exempt(ip)
	addr := clientKey(ip)
	l.mu.Lock()
	defer l.mu.Unlock()
	var cl *client
	if capped {
		if cl = l.clients[addr]; cl == nil {
			cl = &client{idle: queue{slot: clientIdle}}
			l.clients[addr] = cl
		}
		if cl.open >= l.perClient {
			if cl.idle.head == nil {
				l.stats.RefusedPerClient++
				l.forgetIfEmpty(addr, cl)
				return nil, nil, tooManyFromClient
			}
			victims = append(victims, l.cutLocked(cl.idle.head))
		}
	}
	if l.budget > 0 && l.open >= l.highWater {
		if v := l.idle.head; v != nil {
			victims = append(victims, l.cutLocked(v))
		}
		if l.open >= l.budget {
			l.stats.RefusedBudget++
			l.startPressure()
			if cl != nil {
				l.forgetIfEmpty(addr, cl)
			}
			return nil, victims, serverFull
		}
		if len(victims) > 0 {
			l.startPressure()
		}
	}
	c = &Conn{Conn: nc, l: l, addr: addr, client: cl}
	l.open++
	if cl != nil {
		cl.open++
	}
	// Until it sends a request it is as idle as a kept-alive connection.
	l.markIdle(c)
	return c, victims, ""
}

// ConnState is the http.Server's ConnState hook: it tells the Listener
// which connections are idle.
func (l *Listener) ConnState(nc net.Conn, s http.ConnState) {
	c := unwrap(nc)
	if c == nil || c.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateNew, http.StateIdle:
		l.markIdle(c)
	case http.StateActive, http.StateHijacked:
		l.markBusy(c)
	}
	// StateClosed follows the server's Close, which did the accounting.
}

// markIdle puts c at the back of the idle queues, unless it is there
// already (a connection accepted here is idle before the server's
// StateNew) or closed.
func (l *Listener) markIdle(c *Conn) {
	if c.state != busy {
		return
	}
	c.state = idle
	l.idleCount++
	l.idle.push(c)
	if c.client != nil {
		c.client.idle.push(c)
	}
}

func (l *Listener) markBusy(c *Conn) {
	if c.state != idle {
		return
	}
	c.state = busy
	l.idleCount--
	l.idle.remove(c)
	if c.client != nil {
		c.client.idle.remove(c)
	}
}

// release takes c out of the counts, once: whoever closes it first, the
// server, a parked request or this package.
func (l *Listener) release(c *Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(c)
}

func (l *Listener) releaseLocked(c *Conn) {
	if c.state == closed {
		return
	}
	l.markBusy(c)
	c.state = closed
	l.open--
	if c.client != nil {
		c.client.open--
		l.forgetIfEmpty(c.addr, c.client)
	}
	if l.pressure != nil && l.open < l.lowWater {
		l.endPressure()
	}
}

// cutLocked releases the idle connection v, to be closed after unlocking.
func (l *Listener) cutLocked(v *Conn) *Conn {
	l.releaseLocked(v)
	l.stats.Cut++
	return v
}

// cutIdle releases up to n of the oldest idle connections.
func (l *Listener) cutIdle(n int) []*Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var victims []*Conn
	for ; n > 0 && l.idle.head != nil; n-- {
		victims = append(victims, l.cutLocked(l.idle.head))
	}
	return victims
}

func (l *Listener) closeAll(victims []*Conn) {
	for _, v := range victims {
		// The server's goroutine reading from it sees the connection
		// closed and ends quietly, as when a client leaves.
		v.Conn.Close()
	}
}

func (l *Listener) forgetIfEmpty(addr netip.Addr, cl *client) {
	if cl.open == 0 {
		delete(l.clients, addr)
	}
}

func (l *Listener) startPressure() {
	if l.pressure == nil {
		s := l.stats
		l.pressure = &s
		l.log.Warn("connections: near the budget, closing the oldest idle ones to make room",
			"open", l.open, "idle", l.idleCount, "budget", l.budget)
	}
}

func (l *Listener) endPressure() {
	since := *l.pressure
	l.pressure = nil
	l.log.Info("connections: back under the budget", "open", l.open, "budget", l.budget,
		"idle_closed", l.stats.Cut-since.Cut, "refused", l.stats.RefusedBudget-since.RefusedBudget)
}

// peerIP is the connection's remote IP, unmapped and without a zone; the
// zero Addr when the peer is not an IP address.
func peerIP(a net.Addr) netip.Addr {
	if a, ok := a.(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap().WithZone("")
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap().WithZone("")
}

// clientKey is the address a connection from ip counts against: ip, or an
// IPv6 one's /64 (one subscriber's usual share, as the rate limiter
// counts it).
func clientKey(ip netip.Addr) netip.Addr {
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

// The refusals, written before closing: a client that reads them learns
// why (the body is the API's usual error). The 429 is the spec's per-IP
// kind (no limit_reached): closing other connections clears it.
var (
	tooManyFromClient = response(429, "too many open connections from your address; close some and retry")
	serverFull        = response(503, "the server is at its connection limit; retry shortly")
)

func response(status int, msg string) string {
	body, _ := json.Marshal(map[string]string{"error": msg})
	return fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// refuse answers and closes nc. A fresh socket's send buffer takes the few
// bytes at once; the deadline is a guard, so Accept cannot stall on it.
func refuse(nc net.Conn, resp string) {
	nc.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	nc.Write([]byte(resp))
	nc.Close()
}
