package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeWidget is a widget API on loopback that counts what it is asked:
// requests by endpoint and status, connections and their source addresses,
// and the questions of each conversation. Every fifth init is refused (429)
// and a conversation is full (403) after three chats.
type fakeWidget struct {
	mu        sync.Mutex
	requests  map[string]map[int]int // endpoint → status → count
	conns     map[string]bool        // client ip:port
	sources   map[string]bool        // client ip
	asked     map[string][]string    // conversation → questions
	convs     int
	held      chan struct{} // one per long poll (wait=25) held open
	lastPolls []string      // the `after` of each poll
}

func newFakeWidget(t *testing.T) (*fakeWidget, *httptest.Server) {
	f := &fakeWidget{requests: map[string]map[int]int{}, conns: map[string]bool{}, sources: map[string]bool{}, asked: map[string][]string{}, held: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeWidget) serve(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Key, Text      string
		ConversationID string `json:"conversation_id"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	if r.Method == http.MethodGet {
		in.Key, in.ConversationID = r.URL.Query().Get("key"), r.URL.Query().Get("conversation_id")
	}
	if in.Key != "wk_test" {
		http.Error(w, "wrong key", http.StatusUnauthorized)
		return
	}
	f.mu.Lock()
	ip, _, _ := net.SplitHostPort(r.RemoteAddr)
	f.conns[r.RemoteAddr], f.sources[ip] = true, true
	f.mu.Unlock()
	if r.URL.Query().Get("wait") == "25" { // held until the run ends: not counted by the tool
		f.held <- struct{}{}
		<-r.Context().Done()
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ep := r.Method + " " + r.URL.Path
	status, body := http.StatusOK, map[string]any{}
	switch ep {
	case "POST /api/widget/init":
		if f.requests[ep][200]+f.requests[ep][429] == 4 { // the fifth
			status = http.StatusTooManyRequests
		} else {
			f.convs++
			body["conversation_id"] = "cv_" + strconv.Itoa(f.convs)
		}
	case "POST /api/widget/chat":
		if len(f.asked[in.ConversationID]) == 3 {
			status = http.StatusForbidden
		} else {
			f.asked[in.ConversationID] = append(f.asked[in.ConversationID], in.Text)
		}
	case "GET /api/widget/poll":
		f.lastPolls = append(f.lastPolls, r.URL.Query().Get("after"))
		body["cursor"] = "c" + strconv.Itoa(len(f.lastPolls))
	default:
		status = http.StatusNotFound
	}
	if f.requests[ep] == nil {
		f.requests[ep] = map[int]int{}
	}
	f.requests[ep][status]++
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func testConfig(target, mode string, visitors, requests int) config {
	return config{target: target, key: "wk_test", mode: mode, visitors: visitors, sources: 4, chats: 2, requests: requests, duration: time.Minute}
}

// The tool counts every request the server answered, by endpoint and
// status, spends exactly its budget, and spreads its connections over the
// source addresses.
func TestCountsWhatTheServerSaw(t *testing.T) {
	t.Parallel()
	f, srv := newFakeWidget(t)
	st, err := run(context.Background(), testConfig(srv.URL, "visitors", 8, 200))
	if err != nil {
		t.Fatal(err)
	}
	if !maps2Equal(st.statuses, f.requests) {
		t.Fatalf("the tool counted %v, the server answered %v", st.statuses, f.requests)
	}
	total := 0
	for ep, ls := range st.latency {
		total += len(ls)
		if n := sum(st.statuses[ep]); n != len(ls) {
			t.Errorf("%s: %d latencies, %d statuses", ep, len(ls), n)
		}
	}
	if total != 200 || st.statuses["POST /api/widget/init"][429] != 1 || len(st.statuses) != 3 {
		t.Fatalf("%d requests counted, want the budget of 200, one init refused, three endpoints: %v", total, st.statuses)
	}
	if len(f.sources) != min(len(f.conns), 4) || len(f.sources) < 2 {
		t.Fatalf("%d connections came from %d addresses (%v), want min(connections, 4)", len(f.conns), len(f.sources), f.sources)
	}
	for conv, qs := range f.asked { // visitors mode: an init, then -chats 2 questions in turn (fewer at the end)
		if len(qs) > 2 || !slices.Equal(qs, Questions[:len(qs)]) {
			t.Errorf("%s asked %q", conv, qs)
		}
	}
	// Each poll after the first of a conversation sends the cursor it got.
	if !slices.ContainsFunc(f.lastPolls, func(c string) bool { return c != "" }) {
		t.Errorf("no poll sent a cursor: %q", f.lastPolls)
	}
	var out strings.Builder
	st.print(&out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("print:\n%s", out.String())
	}
	// The columns scripts/load-campaign.sh reads: $2 the path, $3 the count.
	if cols := strings.Fields(lines[2]); cols[1] != "/api/widget/chat" || cols[2] != fmt.Sprint(len(st.latency["POST /api/widget/chat"])) {
		t.Errorf("print's columns: %q", lines[2])
	}
}

// Chat mode asks only the questions the demo answers, in turn, and starts
// a new conversation when one is full (403), as the widget does.
func TestChatModeStartsOverWhenFull(t *testing.T) {
	t.Parallel()
	f, srv := newFakeWidget(t)
	st, err := run(context.Background(), testConfig(srv.URL, "chat", 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	// init, chat ×3, a 403; init, chat ×3, a 403.
	if f.requests["POST /api/widget/init"][200] != 2 || f.requests["POST /api/widget/chat"][200] != 6 ||
		f.requests["POST /api/widget/chat"][403] != 2 || st.statuses["POST /api/widget/chat"][403] != 2 {
		t.Fatalf("server %v, tool %v", f.requests, st.statuses)
	}
	if want := Questions[:3]; !slices.Equal(f.asked["cv_1"], want) || !slices.Equal(f.asked["cv_2"], want) {
		t.Fatalf("asked %q", f.asked)
	}
}

// Long polls are held until the run ends, from several source addresses,
// and not counted as answered requests.
func TestLongPollsHeld(t *testing.T) {
	t.Parallel()
	f, srv := newFakeWidget(t)
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		for range 4 {
			<-f.held
		}
		stop() // all four held: end the run
	}()
	c := testConfig(srv.URL, "poll", 0, 1000)
	c.longPolls, c.sources = 4, 3
	st, err := run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.statuses["POST /api/widget/init"][200]; n != 4 || len(st.statuses) != 1 {
		t.Fatalf("counted %v, want 4 inits and nothing else", st.statuses)
	}
	// Each dial takes the next address, but Go's transport may dial a
	// connection a request then does not use (an idle one came back
	// first), so an address can go unseen: several, not exactly three
	// (CI saw the four held polls on .2 and .4).
	if f.mu.Lock(); len(f.sources) < 2 || len(f.conns) < 4 {
		t.Fatalf("%d connections from %v, want four or more from at least 2 of the 3 addresses", len(f.conns), f.sources)
	}
}

// Against the null server every request is a 200.
func TestNullServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(nullServer())
	defer srv.Close()
	st, err := run(context.Background(), testConfig(srv.URL, "visitors", 4, 100))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ep, s := range st.statuses {
		if n += s[200]; len(s) != 1 {
			t.Errorf("%s: %v", ep, s)
		}
	}
	if n != 100 {
		t.Fatalf("%d answered, want 100", n)
	}
}

func TestOnlyLoopback(t *testing.T) {
	t.Parallel()
	for target, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://127.9.9.9:1": true, "http://[::1]:8080": true, "http://localhost:8080": true,
		"http://10.0.0.1:8080": false, "http://192.168.1.5": false, "https://example.com": false, "not a url": false, "http://127.0.0.1.nip.io": false,
	} {
		if err := checkTarget(target); (err == nil) != ok {
			t.Errorf("checkTarget(%q) = %v", target, err)
		}
	}
	if _, err := run(context.Background(), testConfig("http://192.0.2.1:80", "chat", 1, 1)); err == nil {
		t.Fatal("a run against a non-loopback address started")
	}
}

func sum(m map[int]int) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}

func maps2Equal(a, b map[string]map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if fmt.Sprint(v) != fmt.Sprint(b[k]) { // fmt sorts map keys
			return false
		}
	}
	return true
}
