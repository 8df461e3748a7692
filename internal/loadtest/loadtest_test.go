package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckTarget(t *testing.T) {
	for target, ok := range map[string]bool{
		"http://127.0.0.1:8080":   true,
		"http://127.9.9.9:1":      true,
		"http://[::1]:8080":       true,
		"http://localhost:8080":   true,
		"http://10.0.0.1:8080":    false,
		"http://192.168.1.5":      false,
		"https://example.com":     false,
		"http://8.8.8.8":          false,
		"not a url":               false,
		"http://127.0.0.1.nip.io": false,
	} {
		if err := CheckTarget(target); (err == nil) != ok {
			t.Errorf("CheckTarget(%q) = %v, want ok=%v", target, err, ok)
		}
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if pct(ds, 50) != 50*time.Millisecond || pct(ds, 99) != 99*time.Millisecond || pct(ds, 100) != 100*time.Millisecond {
		t.Fatalf("p50 %v p99 %v p100 %v", pct(ds, 50), pct(ds, 99), pct(ds, 100))
	}
	if pct(ds[:1], 99) != time.Millisecond || pct(nil, 50) != 0 {
		t.Fatal("edge cases")
	}
}

// A fake widget API on loopback: the run stays within its request budget,
// uses several source addresses, and records every endpoint.
func TestRunAgainstAFakeServer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		var mu sync.Mutex
		sources := map[string]bool{}
		requests := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			mu.Lock()
			sources[host] = true
			requests++
			mu.Unlock()
			switch r.URL.Path {
			case "/api/widget/init":
				json.NewEncoder(w).Encode(map[string]string{"conversation_id": "cv_1"})
			case "/api/widget/chat":
				json.NewEncoder(w).Encode(map[string]string{"response": "ok"})
			case "/api/widget/poll":
				json.NewEncoder(w).Encode(map[string]any{"messages": []any{}, "cursor": "c0"})
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()
		stats, err := Run(context.Background(), Config{Engine: e.name, Target: srv.URL, Key: "wk_x", Mode: "visitors", Visitors: 8, Sources: 4, Chats: 2, Requests: 200, Duration: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		eps := map[string]bool{}
		for _, s := range stats.Summaries() {
			total += s.Requests
			eps[s.Endpoint] = true
			if s.Statuses[200] != s.Requests {
				t.Errorf("%s: statuses %v", s.Endpoint, s.Statuses)
			}
		}
		if total != 200 || requests != 200 {
			t.Fatalf("recorded %d, server saw %d; want exactly the budget of 200", total, requests)
		}
		if !eps["POST /api/widget/init"] || !eps["POST /api/widget/chat"] || !eps["GET /api/widget/poll"] {
			t.Fatalf("endpoints %v", eps)
		}
		if len(sources) != 4 {
			t.Fatalf("source addresses %v, want 4", sources)
		}
		if _, err := Run(context.Background(), Config{Engine: e.name, Target: "http://10.1.1.1:80", Key: "k", Visitors: 1, Requests: 1, Duration: time.Second}); err == nil {
			t.Fatal("a non-loopback target was accepted")
		}
	})
}

// TestBalancer: requests are spread evenly over the backends, each sees
// the client's address in X-Forwarded-For, and only loopback backends are
// accepted.
func TestBalancer(t *testing.T) {
	var hits [3]atomic.Int64
	var backends []string
	for i := range hits {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Forwarded-For") != "127.0.0.1" {
				t.Errorf("X-Forwarded-For %q", r.Header.Get("X-Forwarded-For"))
			}
			hits[i].Add(1)
			io.WriteString(w, r.URL.Path)
		}))
		defer s.Close()
		backends = append(backends, s.URL)
	}
	lb, err := NewBalancer(backends)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(lb)
	defer front.Close()
	for range 30 {
		resp, err := http.Get(front.URL + "/api/widget/poll")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "/api/widget/poll" {
			t.Fatalf("body %q", body)
		}
	}
	for i := range hits {
		if n := hits[i].Load(); n != 10 {
			t.Errorf("backend %d got %d requests, want 10", i, n)
		}
	}
	if _, err := NewBalancer([]string{backends[0], "http://192.0.2.1:80"}); err == nil {
		t.Error("a non-loopback backend was accepted")
	}
}

// TestRamp: long-poll visitors arrive spread over the ramp, not at once.
func TestRamp(t *testing.T) {
	var mu sync.Mutex
	var inits []time.Time
	testOver := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/widget/init":
			mu.Lock()
			inits = append(inits, time.Now())
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]string{"conversation_id": "cv_1"})
		case "/api/widget/poll":
			select { // held until the run ends
			case <-r.Context().Done():
			case <-testOver:
			}
		}
	}))
	defer srv.Close()
	defer close(testOver) // first: a failed test must not leave srv.Close waiting
	start := time.Now()
	_, err := Run(context.Background(), Config{Target: srv.URL, Key: "wk_x", Mode: "poll", Visitors: 1, Sources: 1,
		Requests: 1 << 20, Duration: 600 * time.Millisecond, LongPolls: 4, Ramp: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(inits) < 5 { // 4 long-poll visitors and the one hammering
		t.Fatalf("%d inits, want 5", len(inits))
	}
	last := inits[len(inits)-1].Sub(start)
	if last < 250*time.Millisecond {
		t.Errorf("the last visitor arrived after %v, want about 300ms (3 of 4 steps of a 400ms ramp)", last)
	}
}

// TestNullServer: the load tool runs against the null server without an
// error status on any endpoint.
func TestNullServer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		srv := httptest.NewServer(NullServer())
		defer srv.Close()
		stats, err := Run(context.Background(), Config{Engine: e.name, Target: srv.URL, Key: "wk_x", Mode: "visitors", Visitors: 4, Sources: 2, Chats: 2, Requests: 100, Duration: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range stats.Summaries() {
			for status, count := range s.Statuses {
				if status != http.StatusOK {
					t.Errorf("%s: %d × %d", s.Endpoint, count, status)
				}
				n += count
			}
		}
		if n != 100 {
			t.Errorf("%d requests recorded, want 100", n)
		}
	})
}

// TestPollFollowsTheCursor: each poll asks for what came after the last
// cursor it was given, in a new conversation from the start again, though
// the load tool skips decoding an answer that repeats the last one.
func TestPollFollowsTheCursor(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		tests := []struct {
			mode  string
			chats int
			want  []string // the after parameter of each poll, in order
		}{
			// One conversation: the cursor moves to c5 with the fourth answer.
			{"poll", 0, []string{"", "c0", "c0", "c0", "c5", "c5"}},
			// A conversation per round, each polled twice: the second poll of
			// each follows that conversation's first answer.
			{"visitors", 2, []string{"", "c0", "", "c0"}},
		}
		for _, tc := range tests {
			t.Run(tc.mode, func(t *testing.T) {
				var mu sync.Mutex
				var afters []string
				polls := map[string]int{}
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					switch r.URL.Path {
					case "/api/widget/init":
						json.NewEncoder(w).Encode(map[string]string{"conversation_id": fmt.Sprint("cv_", len(polls))})
						polls[fmt.Sprint("cv_", len(polls))] = 0
					case "/api/widget/chat":
						json.NewEncoder(w).Encode(map[string]string{"response": "ok"})
					case "/api/widget/poll":
						conv := r.URL.Query().Get("conversation_id")
						afters = append(afters, r.URL.Query().Get("after"))
						polls[conv]++
						cursor := "c0"
						if polls[conv] > 3 {
							cursor = "c5"
						}
						json.NewEncoder(w).Encode(map[string]any{"messages": []any{}, "cursor": cursor, "wait": false})
					}
				}))
				defer srv.Close()
				// Requests: one init, then the polls (and in visitors mode the
				// chats and the second init).
				requests := 1 + len(tc.want)
				if tc.mode == "visitors" {
					requests = 2 * (1 + 2*tc.chats)
				}
				_, err := Run(context.Background(), Config{Engine: e.name, Target: srv.URL, Key: "wk_x", Mode: tc.mode, Visitors: 1, Chats: tc.chats, Requests: requests, Duration: 10 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if !slices.Equal(afters, tc.want) {
					t.Fatalf("after parameters %q, want %q", afters, tc.want)
				}
			})
		}
	})
}

// The run ends on time with requests in flight: they are cut off by
// closing their connections (the server sees each client go) and not
// counted, and what was answered before is.
func TestRunEndsWithRequestsInFlight(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		released, testOver := make(chan struct{}, 16), make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/widget/init" {
				json.NewEncoder(w).Encode(map[string]string{"conversation_id": "cv_1"})
				return
			}
			select { // a poll, held until the client goes away
			case <-r.Context().Done():
				released <- struct{}{}
			case <-testOver:
			}
		}))
		defer srv.Close()
		defer close(testOver) // first: a failed test must not leave srv.Close waiting
		done := make(chan *Stats, 1)
		go func() {
			stats, err := Run(context.Background(), Config{Engine: e.name, Target: srv.URL, Key: "wk_x", Mode: "poll",
				Visitors: 4, Sources: 1, Requests: 100, Duration: 300 * time.Millisecond})
			if err != nil {
				t.Error(err)
			}
			done <- stats
		}()
		stats := within(t, done, "the run ending")
		for range 4 {
			within(t, released, "the server seeing a held poll's client go")
		}
		got := map[string]map[int]int{}
		for _, s := range stats.Summaries() {
			got[s.Endpoint] = s.Statuses
		}
		want := map[string]map[int]int{"POST /api/widget/init": {200: 4}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("recorded %v, want %v", got, want)
		}
	})
}

// A server that refuses every connection: each request fails at once, is
// counted with status 0, and the run still ends on time — the loop
// resumes visitors from a queue, so a run of such failures cannot grow
// its stack.
func TestRunAgainstAClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := "http://" + ln.Addr().String()
	ln.Close()
	forEachEngine(t, func(t *testing.T, e engine) {
		done := make(chan *Stats, 1)
		go func() {
			stats, err := Run(context.Background(), Config{Engine: e.name, Target: target, Key: "wk_x", Mode: "chat",
				Visitors: 2, Sources: 1, Requests: 1 << 30, Duration: 200 * time.Millisecond})
			if err != nil {
				t.Error(err)
			}
			done <- stats
		}()
		stats := within(t, done, "the run ending")
		n := 0
		for _, s := range stats.Summaries() {
			if s.Endpoint != "POST /api/widget/init" || s.Statuses[0] != s.Requests {
				t.Errorf("%s: %v, want only inits, all failed (status 0)", s.Endpoint, s.Statuses)
			}
			n += s.Requests
		}
		if n < 2 {
			t.Errorf("%d failed requests recorded, want at least one per visitor", n)
		}
	})
}

func TestRunEngines(t *testing.T) {
	srv := httptest.NewServer(NullServer())
	defer srv.Close()
	cfg := Config{Target: srv.URL, Key: "wk_x", Mode: "poll", Visitors: 1, Requests: 3, Duration: 10 * time.Second}
	for _, e := range []string{"", EngineGoroutines, EngineLoop, "threads"} {
		cfg.Engine = e
		_, err := Run(context.Background(), cfg)
		if wantErr := e == "threads" || (e == EngineLoop && !haveLoop); (err != nil) != wantErr {
			t.Errorf("engine %q: error %v, want an error: %v", e, err, wantErr)
		}
	}
}

// In chat mode a conversation that is full (the 403 of the cap on
// messages per conversation) is replaced by a new one, as the widget does,
// so a long run keeps measuring chats.
func TestChatModeStartsOverWhenFull(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		var mu sync.Mutex
		chats := map[string]int{}
		inits := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			switch r.URL.Path {
			case "/api/widget/init":
				json.NewEncoder(w).Encode(map[string]string{"conversation_id": fmt.Sprint("cv_", inits)})
				inits++
			case "/api/widget/chat":
				var in struct {
					ConversationID string `json:"conversation_id"`
				}
				json.NewDecoder(r.Body).Decode(&in)
				if chats[in.ConversationID]++; chats[in.ConversationID] > 2 {
					w.WriteHeader(http.StatusForbidden)
					json.NewEncoder(w).Encode(map[string]string{"error": "this conversation has reached its message limit; start a new one"})
					return
				}
				json.NewEncoder(w).Encode(map[string]string{"response": "ok"})
			}
		}))
		defer srv.Close()
		if _, err := Run(context.Background(), Config{Engine: e.name, Target: srv.URL, Key: "wk_x", Mode: "chat", Visitors: 1, Requests: 8, Duration: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if inits != 2 || chats["cv_0"] != 3 || chats["cv_1"] != 3 {
			t.Errorf("%d inits, chats per conversation %v; want 2, 3 in each", inits, chats)
		}
	})
}
