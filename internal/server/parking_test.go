package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/park"
	"parley/internal/store"
)

// gatedStore holds every CreateConversation until the gate opens: inits
// pile up as they do behind a busy writer.
type gatedStore struct {
	store.Store
	gate chan struct{}
}

func (g gatedStore) CreateConversation(ctx context.Context, n store.NewConversation) (domain.Conversation, error) {
	<-g.gate
	return g.Store.CreateConversation(ctx, n)
}

// parkedServer serves a whole Parley stack as cmd/parley does, on a park
// Listener, and counts the connections its requests took over.
type parkedServer struct {
	*env
	server   *Server
	url      string
	hijacked atomic.Int32
}

func newParkedServer(t *testing.T, o envOptions) *parkedServer {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := park.NewListener(tcp)
	o.lot = park.NewLot(ln)
	ps := &parkedServer{env: newEnv(t, o), url: "http://" + tcp.Addr().String()}
	ps.server = ps.handler.(*Server)
	srv := &http.Server{
		Handler: ps.handler,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateHijacked {
				ps.hijacked.Add(1)
			}
		},
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ps.chat.Stop() // parked long polls answer now
		srv.Close()
		o.lot.Wait()
	})
	return ps
}

type answer struct {
	status int
	body   map[string]any
	reused bool // the request went on a connection used before
}

// send makes a request with c and decodes the JSON answer.
func (ps *parkedServer) send(t *testing.T, c *http.Client, method, path, body string) answer {
	var reused bool
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), method, ps.url+path, rd)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	res, err := c.Do(req)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode, reused: reused}
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Errorf("%s %s answered %d %q", method, path, res.StatusCode, raw)
	}
	return a
}

func newClient() *http.Client { return &http.Client{Transport: &http.Transport{}} }

// TestCrowdedInitIsParked: once enough inits are in progress, the next one
// gives its connection over to the parking lot while it waits; it is
// answered like any other, on a connection the client keeps using. Inits
// before the crowd are answered in their handlers.
func TestCrowdedInitIsParked(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	defer open()
	ps := newParkedServer(t, envOptions{crowdedInits: 2, chatStore: func(s store.Store) store.Store {
		return gatedStore{Store: s, gate: gate}
	}})
	body := `{"key":"` + ps.key + `"}`

	// Two inits wait for the store: a crowd of two.
	answers := make([]answer, 3)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { answers[i] = ps.send(t, newClient(), "POST", "/api/widget/init", body) })
	}
	waitFor(t, "two inits in progress", func() bool { return ps.server.inits.Load() == 2 })
	if n := ps.hijacked.Load(); n != 0 {
		t.Fatalf("%d inits were parked before the crowd formed", n)
	}
	third := newClient()
	wg.Go(func() { answers[2] = ps.send(t, third, "POST", "/api/widget/init", body) })
	waitFor(t, "the third init parked", func() bool { return ps.hijacked.Load() == 1 })

	open()
	wg.Wait()
	seen := map[string]bool{}
	for i, a := range answers {
		id, _ := a.body["conversation_id"].(string)
		if a.status != http.StatusOK || !strings.HasPrefix(id, "cv_") || a.body["chatbot_name"] != "Helper" || seen[id] {
			t.Fatalf("init %d: %d %+v", i, a.status, a.body)
		}
		seen[id] = true
	}
	if n := ps.server.inits.Load(); n != 0 {
		t.Fatalf("%d inits still counted in progress after all were answered", n)
	}
	// The parked init's connection came back to the server: the client's
	// next request goes on it, and is answered in its handler.
	if a := ps.send(t, third, "POST", "/api/widget/init", body); a.status != http.StatusOK || !a.reused {
		t.Fatalf("after the parked init: %d, connection reused %v", a.status, a.reused)
	}
	if n := ps.hijacked.Load(); n != 1 {
		t.Fatalf("%d inits were parked, want 1", n)
	}
}

// TestLongPollIsParked: a poll with a wait is parked at once and answered
// from there when an operator writes; a poll without one is answered in
// its handler; and the parked poll's connection serves the next request.
func TestLongPollIsParked(t *testing.T) {
	t.Parallel()
	ps := newParkedServer(t, envOptions{})
	c := newClient()
	init := ps.send(t, c, "POST", "/api/widget/init", `{"key":"`+ps.key+`"}`)
	conv, _ := init.body["conversation_id"].(string)
	poll := "/api/widget/poll?key=" + ps.key + "&conversation_id=" + conv

	if a := ps.send(t, c, "GET", poll, ""); a.status != http.StatusOK || ps.hijacked.Load() != 0 {
		t.Fatalf("short poll: %d, %d connections taken over", a.status, ps.hijacked.Load())
	}
	got := make(chan answer, 1)
	go func() { got <- ps.send(t, c, "GET", poll+"&wait=25", "") }()
	waitFor(t, "the long poll parked and waiting", func() bool { return ps.hijacked.Load() == 1 && ps.chat.Waiting() == 1 })
	if _, err := ps.chat.TakeOver(t.Context(), ps.account.ID, conv); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if a.status != http.StatusOK || a.body["wait"] != true || a.body["handoff"] != "human" || !a.reused {
			t.Fatalf("parked long poll answered %d %+v, connection reused %v", a.status, a.body, a.reused)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the parked long poll was not answered when an operator took over")
	}
	// A bad wait is the handler's to refuse, parked or not.
	if a := ps.send(t, c, "GET", poll+"&wait=99", ""); a.status != http.StatusBadRequest || !a.reused {
		t.Fatalf("wait=99: %d %+v", a.status, a.body)
	}
}

// waitFor polls cond until it holds, failing after a generous bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
