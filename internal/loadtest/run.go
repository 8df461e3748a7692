package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one load run.
type Config struct {
	Target    string        // base URL of the server; must be a loopback address
	Key       string        // a widget key
	Mode      string        // "visitors" (init, chats, polls) or one endpoint to hammer: "init", "chat", "poll"
	Visitors  int           // concurrent simulated visitors (connections)
	Sources   int           // distinct loopback source addresses, 127.0.0.2 …
	Chats     int           // messages per visitor in "visitors" mode
	Requests  int           // stop after this many requests in all
	Duration  time.Duration // and after this long, whichever comes first
	LongPolls int           // in "visitors" mode: this many extra visitors park a long poll (wait=25) and hold it
	Ramp      time.Duration // the long-poll visitors arrive evenly over this long (0: all at once)
	Engine    string        // "loop" (one epoll loop for the visitors; Linux) or "goroutines"; "" picks loop where there is one
}

// Engines: how the visitors' requests are made. Long-poll visitors, idle
// by design, always have a goroutine each.
const (
	EngineLoop       = "loop"
	EngineGoroutines = "goroutines"
)

// ErrNotLoopback refuses any target that is not on this machine.
var ErrNotLoopback = errors.New("the load tool only targets loopback addresses (127.0.0.0/8, ::1, localhost)")

// CheckTarget makes sure the target is a loopback address.
func CheckTarget(target string) error {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("target %q is not a URL", target)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return ErrNotLoopback
	}
	return nil
}

// Run drives the target and returns the statistics.
func Run(ctx context.Context, cfg Config) (*Stats, error) {
	if err := CheckTarget(cfg.Target); err != nil {
		return nil, err
	}
	if cfg.Visitors < 1 || cfg.Requests < 1 || cfg.Duration <= 0 {
		return nil, errors.New("visitors, requests and duration must be positive")
	}
	switch cfg.Engine {
	case "":
		cfg.Engine = EngineGoroutines
		if haveLoop {
			cfg.Engine = EngineLoop
		}
	case EngineLoop:
		if !haveLoop {
			return nil, errors.New("the loop engine needs Linux (epoll)")
		}
	case EngineGoroutines:
	default:
		return nil, fmt.Errorf("engine %q: want %s or %s", cfg.Engine, EngineLoop, EngineGoroutines)
	}
	u, _ := url.Parse(cfg.Target) // CheckTarget parsed it
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	prefix := strings.TrimSuffix(u.Path, "/")

	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	stats := NewStats()
	var budget atomic.Int64
	budget.Store(int64(cfg.Requests))
	take := func() bool { return budget.Add(-1) >= 0 }

	// Each visitor has its own connection from its own 127.x source
	// address (several visitors share one when there are more visitors
	// than sources), as distinct visitors' would. Each keeps its own
	// numbers, merged at the end, so recording costs no lock.
	const timeout = 40 * time.Second
	source := func(i int) net.Addr { return sourceAddr(i%max(cfg.Sources, 1), cfg.Sources) }
	var all []*visitor
	newVisitor := func(c requester) *visitor {
		v := &visitor{cfg: cfg, prefix: prefix, stats: newShard(), c: c}
		all = append(all, v)
		return v
	}
	var wg sync.WaitGroup
	// A request in flight when the run ends is cut off by closing its
	// connection: the run is bounded in time.
	var mu sync.Mutex
	var wires []*wireConn
	var lp *loop
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range wires {
			w.interrupt()
		}
		if lp != nil {
			lp.stop()
		}
	})
	defer stop()
	goVisit := func(i int, visit func(v *visitor)) {
		w := newWireConn(addr, u.Host, source(i), timeout)
		v := newVisitor(w)
		mu.Lock()
		wires = append(wires, w)
		mu.Unlock()
		wg.Go(func() { visit(v) })
	}
	for i := range cfg.LongPolls {
		delay := cfg.Ramp * time.Duration(i) / time.Duration(cfg.LongPolls)
		goVisit(i, func(v *visitor) {
			select {
			case <-time.After(delay):
				v.holdLongPoll(ctx)
			case <-ctx.Done():
			}
		})
	}
	hammer := func(v *visitor) {
		for ctx.Err() == nil && v.round(ctx, take) {
		}
	}
	if cfg.Engine == EngineLoop {
		l, err := newLoop(addr, u.Host, timeout)
		if err != nil {
			cancel()
			wg.Wait()
			return nil, err
		}
		defer l.close()
		for i := range cfg.Visitors {
			c := l.add(source(i))
			v := newVisitor(c)
			c.visit = func() { hammer(v) }
		}
		mu.Lock()
		lp = l
		mu.Unlock()
		if ctx.Err() != nil { // the run ended before the loop could be stopped
			l.stop()
		}
		wg.Go(l.run)
	} else {
		for i := range cfg.Visitors {
			goVisit(i, hammer)
		}
	}
	wg.Wait()
	stats.Stop()
	for _, v := range all {
		stats.merge(v.stats)
	}
	return stats, nil
}

// sourceAddr is the i-th of n loopback source addresses (nil: the default).
func sourceAddr(i, n int) net.Addr {
	if n <= 1 {
		return nil
	}
	// 127.0.0.2 upwards; every address in 127.0.0.0/8 is this machine.
	x := i + 2
	return &net.TCPAddr{IP: net.IPv4(127, byte(x>>16), byte(x>>8), byte(x))}
}

// requester makes one request and returns the status and the body, valid
// until its next call: a wireConn, or a loopConn inside the loop.
type requester interface {
	do(method, target string, body []byte) (int, []byte, error)
}

type visitor struct {
	cfg    Config
	prefix string // the target URL's path, before /api/…
	c      requester
	stats  *shard
	conv   string
	cur    string

	chatBodies [][]byte // per question, built once per conversation
	asked      int      // chats so far, in chat mode
	pollPath   string   // built once per cursor
	lastPoll   []byte   // the conversation's last poll answer
}

// round is one unit of work for the mode; false when the budget is spent.
// A refused init (rate limit, quota) is counted and tried again.
func (v *visitor) round(ctx context.Context, take func() bool) bool {
	if v.cfg.Mode == "init" {
		if !take() {
			return false
		}
		v.init(ctx)
		return true
	}
	if v.conv == "" || v.cfg.Mode == "visitors" {
		if !take() {
			return false
		}
		if v.init(ctx) != http.StatusOK {
			return true
		}
	}
	switch v.cfg.Mode {
	case "chat":
		if !take() {
			return false
		}
		if v.chat(ctx, v.asked%answered) == http.StatusForbidden {
			// The conversation is full (the cap on messages per
			// conversation): the next round starts a new one, as the
			// widget does.
			v.conv = ""
		}
		v.asked++
	case "poll":
		if !take() {
			return false
		}
		v.poll(ctx, 0)
	default: // visitors: a few messages, a poll after each
		for i := range v.cfg.Chats {
			if !take() {
				return false
			}
			v.chat(ctx, i%len(Questions))
			if !take() {
				return false
			}
			v.poll(ctx, 0)
		}
	}
	return true
}

// Questions are what visitors ask: first the ones the demo agent
// (internal/demo) answers from its knowledge, so that a chat is the common
// case — an answer stored with the question — and last the quick reply
// that asks for a person, reached in visitors mode with -chats 5 or more.
// A test keeps the demo answering them.
var Questions = []string{"What is Parley?", "How much does it cost?", "Which languages are supported?",
	"Which database does Parley need?", "Talk to a human"}

// answered is how many of Questions the demo agent answers (all but the
// last); chat mode asks them in turn.
var answered = len(Questions) - 1

func (v *visitor) init(ctx context.Context) int {
	body, _ := json.Marshal(map[string]string{"key": v.cfg.Key})
	status, resp := v.do(ctx, "POST /api/widget/init", http.MethodPost, "/api/widget/init", body)
	if status == http.StatusOK {
		var r struct {
			ConversationID string `json:"conversation_id"`
		}
		json.Unmarshal(resp, &r)
		v.conv, v.cur, v.pollPath, v.lastPoll = r.ConversationID, "", "", v.lastPoll[:0]
		v.chatBodies = v.chatBodies[:0]
		for _, q := range Questions {
			b, _ := json.Marshal(map[string]string{"key": v.cfg.Key, "conversation_id": v.conv, "text": q})
			v.chatBodies = append(v.chatBodies, b)
		}
	}
	return status
}

func (v *visitor) chat(ctx context.Context, question int) int {
	status, _ := v.do(ctx, "POST /api/widget/chat", http.MethodPost, "/api/widget/chat", v.chatBodies[question])
	return status
}

func (v *visitor) poll(ctx context.Context, wait int) int {
	ep := "GET /api/widget/poll"
	if wait > 0 {
		ep = "GET /api/widget/poll (long)"
	}
	if v.pollPath == "" {
		q := url.Values{"key": {v.cfg.Key}, "conversation_id": {v.conv}, "wait": {strconv.Itoa(wait)}}
		if v.cur != "" {
			q.Set("after", v.cur)
		}
		v.pollPath = "/api/widget/poll?" + q.Encode()
	}
	status, resp := v.do(ctx, ep, http.MethodGet, v.pollPath, nil)
	// An answer like the last one has the same cursor: decoding it again
	// was a tenth of the load tool's CPU in poll mode, which shares the
	// machine with the server.
	if status == http.StatusOK && !bytes.Equal(resp, v.lastPoll) {
		v.lastPoll = append(v.lastPoll[:0], resp...)
		var r struct{ Cursor string }
		json.Unmarshal(resp, &r)
		if r.Cursor != v.cur {
			v.cur, v.pollPath = r.Cursor, ""
		}
	}
	return status
}

// holdLongPoll keeps one long poll parked until the run ends: the cost
// of visitors waiting for an operator.
func (v *visitor) holdLongPoll(ctx context.Context) {
	if v.init(ctx) != http.StatusOK {
		return
	}
	for ctx.Err() == nil {
		v.pollPath = "" // wait=25, not the hammer's wait=0
		v.poll(ctx, 25)
	}
}

// do makes one request and records it; a request cut off because the
// run ended is not counted.
func (v *visitor) do(ctx context.Context, ep, method, path string, body []byte) (int, []byte) {
	begin := time.Now()
	status, resp, err := v.c.do(method, v.prefix+path, body)
	if err != nil {
		if ctx.Err() == nil {
			v.stats.record(ep, 0, time.Since(begin))
		}
		return 0, nil
	}
	v.stats.record(ep, status, time.Since(begin))
	return status, resp
}
