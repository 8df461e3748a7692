package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/agent/llm"
	"parley/internal/domain"
)

// benchBackend is a fake OpenAI-compatible backend that streams with fixed
// delays: the first chunk after firstDelay, then chunks more, gap apart.
// It records, per conversation (the last user message names it), when the
// request arrived and when the first chunk was flushed, so the time Parley
// adds can be told from the backend's own. hold, when set, keeps every
// stream open after its first chunk until it is closed.
type benchBackend struct {
	*httptest.Server
	firstDelay, gap time.Duration
	chunks          int
	hold            chan struct{}

	mu      sync.Mutex
	arrived map[string]time.Time
	first   map[string]time.Time
}

func newBenchBackend(tb testing.TB, firstDelay, gap time.Duration, chunks int) *benchBackend {
	f := &benchBackend{firstDelay: firstDelay, gap: gap, chunks: chunks, arrived: map[string]time.Time{}, first: map[string]time.Time{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(f.Close)
	return f
}

func (f *benchBackend) serve(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	var body struct {
		Messages []struct{ Content string }
	}
	json.NewDecoder(r.Body).Decode(&body)
	io.Copy(io.Discard, r.Body)
	id := body.Messages[len(body.Messages)-1].Content
	w.Header().Set("Content-Type", "text/event-stream")
	time.Sleep(f.firstDelay)
	chunk(w, `{"reply": "Yes, we `)
	t1 := time.Now()
	f.mu.Lock()
	f.arrived[id], f.first[id] = t0, t1
	f.mu.Unlock()
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-r.Context().Done():
			return
		}
	}
	for range f.chunks {
		time.Sleep(f.gap)
		chunk(w, "ship to the EU and beyond ")
	}
	chunk(w, `.", "quick_replies": ["Cost?"]}`)
	fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":200,\"completion_tokens\":30}}\n\ndata: [DONE]\n\n")
}

// streamClient sends streamed chats to a Parley served on loopback.
type streamClient struct {
	url, key string
	http     *http.Client
	srv      *httptest.Server // Parley
}

// chat sends text on conv and returns when it was sent and when the first
// delta event arrived; after is called then, and the rest of the stream is
// read before chat returns.
func (c streamClient) chat(tb testing.TB, conv, text string, after func()) (sent, first time.Time) {
	body, _ := json.Marshal(map[string]any{"key": c.key, "conversation_id": conv, "text": text})
	req, _ := http.NewRequest("POST", c.url+"/api/widget/chat", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	sent = time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		tb.Error(err)
		return
	}
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	line, err := rd.ReadString('\n')
	first = time.Now()
	if err != nil || line != "event: delta\n" {
		tb.Errorf("first line %q, %v", line, err)
		return
	}
	if after != nil {
		after()
	}
	rest, _ := io.ReadAll(rd)
	if !strings.Contains(string(rest), "event: done\n") {
		tb.Errorf("stream without done: %s", rest)
	}
	return sent, first
}

func streamBench(tb testing.TB, backend *benchBackend, convs int) (*env, streamClient, []string) {
	e := newEnvTB(tb, envOptions{
		llm:       &llm.Config{BaseURL: backend.URL + "/v1", Model: "m", MaxRetries: -1},
		aiTimeout: time.Minute, maxMsgs: 1 << 40, limits: &domain.Limits{MonthlyConversations: 1 << 30},
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = "192.0.2.1:5555"
		e.handler.ServeHTTP(w, r)
	}))
	tb.Cleanup(srv.Close)
	ids := make([]string, convs)
	for i := range ids {
		ids[i], _ = e.start()
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: convs}}
	return e, streamClient{url: srv.URL, key: e.key, http: client, srv: srv}, ids
}

// BenchmarkStreamTTFT: 100 streams at once, each a visitor who sends a
// message to an LLM agent whose backend streams like a model: the first
// chunk after 200 ms, then 20 more 40 ms apart (about a second of reply).
// Each of the 100 visitors sends their next message when the last reply
// has ended, the first ones staggered over a reply's length, so about 100
// streams are open all the time (some 80 new chats a second). Reported is
// the time to first token Parley adds on top of the backend's: from the
// visitor's request to the backend receiving the call (decoding, key and
// conversation lookups, storing the message, the history, retrieval, the
// prompt) plus from the backend's first chunk to the visitor's first delta
// event (parsing, following the reply's JSON, the event, the flush), over
// real loopback connections; the visitors and the backend run in the same
// process, on the same cores. Numbers in docs/benchmarks.md ("Streaming
// replies").
func BenchmarkStreamTTFT(b *testing.B) {
	const concurrent = 100
	const first, gap, chunks = 200 * time.Millisecond, 40 * time.Millisecond, 20
	backend := newBenchBackend(b, first, gap, chunks)
	_, client, convs := streamBench(b, backend, concurrent)
	var added, pre, post []time.Duration
	var mu sync.Mutex
	// One chat each first, so the knowledge index is built and the
	// connections are open: a server's steady state.
	var warm sync.WaitGroup
	for _, conv := range convs {
		warm.Go(func() { client.chat(b, conv, conv+" warm-up", nil) })
	}
	warm.Wait()
	cycle := first + chunks*gap
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, conv := range convs {
		wg.Go(func() {
			time.Sleep(cycle * time.Duration(i) / concurrent)
			for round := range b.N {
				text := fmt.Sprintf("%s round %d", conv, round)
				sent, first := client.chat(b, conv, text, nil)
				backend.mu.Lock()
				arrived, flushed := backend.arrived[text], backend.first[text]
				backend.mu.Unlock()
				mu.Lock()
				added = append(added, arrived.Sub(sent)+first.Sub(flushed))
				pre, post = append(pre, arrived.Sub(sent)), append(post, first.Sub(flushed))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	q := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[int(p*float64(len(d)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(added, 0.5), "added-p50-ms")
	b.ReportMetric(q(added, 0.99), "added-p99-ms")
	// The two parts: before the backend is called, and relaying its first
	// chunk.
	b.ReportMetric(q(pre, 0.99), "before-call-p99-ms")
	b.ReportMetric(q(post, 0.99), "relay-p99-ms")
}

// BenchmarkStreamsHeld: 1,000 visitors' streams held open at once (the
// backend has sent each its first chunk and waits). Reported is the memory
// the streams hold in Parley: heap and goroutine stacks while they are
// held, less the same with 1,000 streams held by the visitors' client
// straight to the backend (the client's and the backend's own share, also
// in this process), divided by the streams.
func BenchmarkStreamsHeld(b *testing.B) {
	const streams = 1000
	var direct, parley int64
	// A round of each first, unmeasured: what a process allocates once
	// (the HTTP machinery's first use) must not count as a stream's.
	held(b, streams, true)
	held(b, streams, false)
	b.ResetTimer()
	for range b.N {
		direct += held(b, streams, true)
		parley += held(b, streams, false)
	}
	b.ReportMetric(float64(parley-direct)/float64(streams*b.N), "B/stream")
	b.ReportMetric(float64(direct)/float64(streams*b.N), "client+backend-B/stream")
}

// held holds n streams open and returns the memory in use then, less the
// memory in use before they started.
func held(b *testing.B, n int, direct bool) int64 {
	backend := newBenchBackend(b, 0, 0, 0)
	backend.hold = make(chan struct{})
	_, client, convs := streamBench(b, backend, n)
	before := inUse()
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i, conv := range convs {
		done.Go(func() {
			text := fmt.Sprintf("%s #%d", conv, i)
			if direct {
				directStream(b, client.http, backend.URL, text, ready.Done)
				return
			}
			client.chat(b, conv, text, ready.Done)
		})
	}
	ready.Wait()
	during := inUse()
	close(backend.hold)
	done.Wait()
	// Everything this round opened is closed before the next one
	// measures.
	client.http.CloseIdleConnections()
	client.srv.Close()
	backend.Close()
	return during - before
}

// directStream is a visitor's client streaming from the backend itself.
func directStream(b *testing.B, hc *http.Client, url, text string, after func()) {
	body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": []any{map[string]string{"role": "user", "content": text}}})
	res, err := hc.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Error(err)
		return
	}
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	if _, err := rd.ReadString('\n'); err != nil {
		b.Error(err)
	}
	after()
	io.Copy(io.Discard, rd)
}

// inUse is the heap in use after a collection plus the goroutine stacks.
func inUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc + m.StackInuse)
}
