package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
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
}

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
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	stats := NewStats()
	var budget atomic.Int64
	budget.Store(int64(cfg.Requests))
	take := func() bool { return budget.Add(-1) >= 0 }

	// One client per source address: each visitor's connections come from
	// its own 127.x address, as distinct visitors' would.
	clients := make([]*http.Client, max(cfg.Sources, 1))
	for i := range clients {
		clients[i] = client(sourceAddr(i, cfg.Sources))
	}
	var wg sync.WaitGroup
	for i := range cfg.LongPolls {
		v := &visitor{cfg: cfg, c: clients[i%len(clients)], stats: stats}
		delay := cfg.Ramp * time.Duration(i) / time.Duration(cfg.LongPolls)
		wg.Go(func() {
			select {
			case <-time.After(delay):
				v.holdLongPoll(ctx)
			case <-ctx.Done():
			}
		})
	}
	for i := range cfg.Visitors {
		v := &visitor{cfg: cfg, c: clients[i%len(clients)], stats: stats}
		wg.Go(func() {
			for ctx.Err() == nil && v.round(ctx, take) {
			}
		})
	}
	wg.Wait()
	stats.Stop()
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

func client(local net.Addr) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: local}
	return &http.Client{
		Timeout: 40 * time.Second,
		Transport: &http.Transport{
			DialContext:         d.DialContext,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
	}
}

type visitor struct {
	cfg   Config
	c     *http.Client
	stats *Stats
	conv  string
	cur   string
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
		v.chat(ctx, questions[0])
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
			v.chat(ctx, questions[i%len(questions)])
			if !take() {
				return false
			}
			v.poll(ctx, 0)
		}
	}
	return true
}

var questions = []string{"What are your opening hours?", "How much does shipping cost?", "Do you ship abroad?", "Talk to a human"}

func (v *visitor) init(ctx context.Context) int {
	var r struct {
		ConversationID string `json:"conversation_id"`
	}
	status := v.post(ctx, "POST /api/widget/init", "/api/widget/init", map[string]any{"key": v.cfg.Key}, &r)
	if status == http.StatusOK {
		v.conv, v.cur = r.ConversationID, ""
	}
	return status
}

func (v *visitor) chat(ctx context.Context, text string) int {
	return v.post(ctx, "POST /api/widget/chat", "/api/widget/chat", map[string]any{"key": v.cfg.Key, "conversation_id": v.conv, "text": text}, nil)
}

func (v *visitor) poll(ctx context.Context, wait int) int {
	q := url.Values{"key": {v.cfg.Key}, "conversation_id": {v.conv}, "wait": {fmt.Sprint(wait)}}
	if v.cur != "" {
		q.Set("after", v.cur)
	}
	var r struct{ Cursor string }
	ep := "GET /api/widget/poll"
	if wait > 0 {
		ep = "GET /api/widget/poll (long)"
	}
	status := v.do(ctx, ep, http.MethodGet, "/api/widget/poll?"+q.Encode(), nil, &r)
	if status == http.StatusOK {
		v.cur = r.Cursor
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
		v.poll(ctx, 25)
	}
}

func (v *visitor) post(ctx context.Context, ep, path string, body, out any) int {
	b, _ := json.Marshal(body)
	return v.do(ctx, ep, http.MethodPost, path, b, out)
}

func (v *visitor) do(ctx context.Context, ep, method, path string, body []byte, out any) int {
	req, err := http.NewRequestWithContext(ctx, method, v.cfg.Target+path, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	res, err := v.c.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			v.stats.Record(ep, 0, time.Since(start))
		}
		return 0
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	io.Copy(&buf, res.Body)
	v.stats.Record(ep, res.StatusCode, time.Since(start))
	if out != nil && res.StatusCode == http.StatusOK {
		json.Unmarshal(buf.Bytes(), out)
	}
	return res.StatusCode
}
