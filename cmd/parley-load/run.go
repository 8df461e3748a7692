package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type config struct {
	target, key, mode                             string
	visitors, sources, chats, requests, longPolls int
	duration, ramp                                time.Duration
}

// Questions are what visitors ask: first those the demo agent answers, so
// a chat stores a question and its answer (the common case; a test keeps
// the demo answering them), last a quick reply asking for a person.
var Questions = []string{"What is Parley?", "How much does it cost?", "Which languages are supported?",
	"Which database does Parley need?", "Talk to a human"}

// run drives the target until the request budget or the duration is spent.
func run(ctx context.Context, c config) (*stats, error) {
	steps := map[string][]string{"init": {"init"}, "chat": {"chat"}, "poll": {"poll"}, "visitors": {"init"}}[c.mode]
	for i := 0; i < c.chats && c.mode == "visitors"; i++ {
		steps = append(steps, "chat", "poll")
	}
	if err := checkTarget(c.target); err != nil || steps == nil || c.key == "" || c.requests < 1 || c.duration <= 0 {
		return nil, errors.Join(err, errors.New("want a -key, a -mode of init, chat, poll or visitors, and positive -requests and -duration"))
	}
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	// One Transport for all; each new connection comes from the next loopback source address,
	// as distinct visitors' do, so that long polls stay within the server's per-address cap.
	var dials atomic.Uint64
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		if x := 2 + int(dials.Add(1)-1)%max(c.sources, 1); c.sources > 1 { // 127.0.0.2 and up: all of 127/8 is this machine
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, byte(x>>16), byte(x>>8), byte(x))}
		}
		return d.DialContext(ctx, network, addr)
	}, MaxIdleConnsPerHost: c.visitors + c.longPolls, DisableCompression: true} // a kept-alive connection per visitor
	defer transport.CloseIdleConnections()
	st, client := &stats{latency: map[string][]time.Duration{}, statuses: map[string]map[int]int{}}, &http.Client{Transport: transport}
	start := time.Now()
	var budget atomic.Int64
	budget.Store(int64(c.requests))
	var wg sync.WaitGroup
	for i := range c.longPolls { // visitors waiting for an operator, each holding a long poll
		v := &visitor{c: &c, client: client, st: st}
		wg.Go(func() {
			select {
			case <-time.After(c.ramp * time.Duration(i) / time.Duration(c.longPolls)):
				for ctx.Err() == nil && (v.conv != "" || v.init(ctx) == http.StatusOK) {
					v.poll(ctx, "25")
				}
			case <-ctx.Done():
			}
		})
	}
	for range c.visitors {
		v := &visitor{c: &c, client: client, st: st}
		wg.Go(func() {
			for ctx.Err() == nil && v.round(ctx, steps, func() bool { return budget.Add(-1) >= 0 }) {
			}
		})
	}
	wg.Wait()
	st.elapsed = time.Since(start)
	return st, nil
}

type visitor struct {
	c      *config
	client *http.Client
	st     *stats
	conv   string // its conversation, "" before an init
	cursor string // its last poll's cursor
	asked  int    // questions asked in the conversation
}

// round makes the mode's requests once, starting a conversation first if
// the visitor has none; false when the budget is spent.
func (v *visitor) round(ctx context.Context, steps []string, take func() bool) bool {
	if v.conv == "" && steps[0] != "init" {
		steps = append([]string{"init"}, steps...)
	}
	for _, step := range steps {
		if !take() {
			return false
		}
		switch step {
		case "init":
			if v.init(ctx) != http.StatusOK {
				return true // refused (limits, quota): counted, and tried again
			}
		case "chat":
			q := Questions[v.asked%len(Questions)]
			if v.c.mode == "chat" { // only what the demo answers
				q = Questions[v.asked%(len(Questions)-1)]
			}
			status, _ := v.do(ctx, "POST /api/widget/chat", "/api/widget/chat", map[string]string{"key": v.c.key, "conversation_id": v.conv, "text": q})
			if v.asked++; status == http.StatusForbidden {
				v.conv = "" // the conversation is full: start another, as the widget does
			}
		case "poll":
			v.poll(ctx, "0")
		}
	}
	return true
}

func (v *visitor) init(ctx context.Context) int {
	status, a := v.do(ctx, "POST /api/widget/init", "/api/widget/init", map[string]string{"key": v.c.key})
	if status == http.StatusOK {
		v.conv, v.cursor, v.asked = a.ConversationID, "", 0
	}
	return status
}

// poll asks for messages after the last cursor; wait "25" is a long poll.
func (v *visitor) poll(ctx context.Context, wait string) {
	q := url.Values{"key": {v.c.key}, "conversation_id": {v.conv}, "wait": {wait}}
	if v.cursor != "" {
		q.Set("after", v.cursor)
	}
	ep := map[bool]string{false: "GET /api/widget/poll", true: "GET /api/widget/poll (long)"}[wait != "0"]
	if status, a := v.do(ctx, ep, "/api/widget/poll?"+q.Encode(), nil); status == http.StatusOK && a.Cursor != "" {
		v.cursor = a.Cursor
	}
}

// answer is what a visitor reads of the widget API's answers.
type answer struct {
	ConversationID string `json:"conversation_id"`
	Cursor         string `json:"cursor"`
}

// do makes a request (a POST of body as JSON; a GET if nil), recorded under ep: a transport
// error as status 0, and a request cut off because the run ended not at all.
func (v *visitor) do(ctx context.Context, ep, path string, body any) (status int, a answer) {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, _ := json.Marshal(body)
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(v.c.target, "/")+path, rd)
	req.Header.Set("Content-Type", "application/json")
	begin := time.Now()
	if res, err := v.client.Do(req); err == nil {
		if b, err := io.ReadAll(res.Body); err == nil {
			status = res.StatusCode
			json.Unmarshal(b, &a) // an error's body has neither field
		}
		res.Body.Close()
	}
	if ctx.Err() == nil {
		v.st.record(ep, status, time.Since(begin))
	}
	return status, a
}

// stats are the run's latencies and statuses by endpoint. One lock for
// all: it is held for an append, next to a round trip of tens of µs.
type stats struct {
	mu       sync.Mutex
	latency  map[string][]time.Duration
	statuses map[string]map[int]int // 0: a transport error
	elapsed  time.Duration
}

func (s *stats) record(ep string, status int, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.statuses[ep] == nil {
		s.statuses[ep] = map[int]int{}
	}
	s.latency[ep] = append(s.latency[ep], d)
	s.statuses[ep][status]++
}

// print writes a line per endpoint after the run: requests, requests a second, p50, p90,
// p99, max (nearest rank), and the count of each status; scripts/ read these columns.
func (s *stats) print(w io.Writer) {
	fmt.Fprintf(w, "%-28s %9s %10s %9s %9s %9s %9s  %s\n", "endpoint", "requests", "req/s", "p50", "p90", "p99", "max", "statuses")
	for _, ep := range slices.Sorted(maps.Keys(s.latency)) {
		ls, codes := slices.Sorted(slices.Values(s.latency[ep])), ""
		for _, c := range slices.Sorted(maps.Keys(s.statuses[ep])) {
			codes += fmt.Sprintf("%s:%d ", map[bool]string{true: "neterr", false: fmt.Sprint(c)}[c == 0], s.statuses[ep][c])
		}
		p := func(q int) time.Duration { return ls[max((len(ls)*q+99)/100-1, 0)].Round(10 * time.Microsecond) }
		fmt.Fprintf(w, "%-28s %9d %10.0f %9s %9s %9s %9s  %s\n", ep, len(ls), float64(len(ls))/s.elapsed.Seconds(), p(50), p(90), p(99), p(100), codes)
	}
}
