package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"parley/internal/agent/llm"
	"parley/internal/domain"
)

// streamingLLM is an OpenAI-compatible server that streams: each request
// is answered by the handler the test set, which may hang on the
// request's context.
type streamingLLM struct {
	*httptest.Server
	handle chan func(w http.ResponseWriter, r *http.Request)
}

func newStreamingLLM(t *testing.T) *streamingLLM {
	f := &streamingLLM{handle: make(chan func(http.ResponseWriter, *http.Request), 1)}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end, so the server notices the client going away
		// (a handler may wait for that).
		var body struct{ Stream bool }
		json.NewDecoder(r.Body).Decode(&body)
		io.Copy(io.Discard, r.Body)
		if !body.Stream {
			r.Header.Set("X-Test-Whole", "1")
		}
		h := <-f.handle
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// chunk writes one streamed delta of content and flushes it.
func chunk(w http.ResponseWriter, content string) {
	c, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}}}})
	fmt.Fprintf(w, "data: %s\n\n", c)
	w.(http.Flusher).Flush()
}

// streamed answers with content in the given pieces, a last chunk with
// usage and no choices, and [DONE].
func streamed(pieces ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Whole") != "" { // a call without stream=true
			c, _ := json.Marshal(strings.Join(pieces, ""))
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}]}`, c)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range pieces {
			chunk(w, p)
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17}}\n\ndata: [DONE]\n\n")
	}
}

// sseEvent is one server-sent event of a chat stream.
type sseEvent struct{ name, data string }

// readEvents parses server-sent events from r until it ends; each is also
// sent on each, when not nil, as it is read.
func readEvents(r io.Reader, each chan<- sseEvent) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			out = append(out, cur)
			if each != nil {
				each <- cur
			}
			cur = sseEvent{}
			continue
		}
		field, value, _ := strings.Cut(line, ": ")
		switch field {
		case "event":
			cur.name = value
		case "data":
			cur.data = value
		}
	}
	return out
}

func parseEvents(raw []byte) []sseEvent { return readEvents(strings.NewReader(string(raw)), nil) }

func deltas(events []sseEvent) []string {
	var out []string
	for _, ev := range events {
		if ev.name == "delta" {
			var d struct{ Text string }
			json.Unmarshal([]byte(ev.data), &d)
			out = append(out, d.Text)
		}
	}
	return out
}

var acceptStream = map[string]string{"Accept": "text/event-stream"}

func streamEnv(t *testing.T, aiTimeout time.Duration) (*env, *streamingLLM) {
	fake := newStreamingLLM(t)
	e := newEnv(t, envOptions{llm: &llm.Config{BaseURL: fake.URL + "/v1", Model: "m", MaxRetries: -1}, aiTimeout: aiTimeout})
	return e, fake
}

// With Accept: text/event-stream the chat answers with delta events as
// the model writes, then a done event whose data is exactly the plain
// call's body; the stored AI message is the whole reply.
func TestChatStreamEvents(t *testing.T) {
	t.Parallel()
	e, fake := streamEnv(t, 5*time.Second)
	conv, _ := e.start()
	reply := []string{`{"reply": "Yes, `, `we ship \"abroad\".\nTo the EU.", "quick_`, `replies": ["Cost?"]}`}
	fake.handle <- streamed(reply...)
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "Do you ship abroad?"}, acceptStream)
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream; charset=utf-8" ||
		r.header.Get("X-Accel-Buffering") != "no" || r.header.Get("Cache-Control") != "no-cache" || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("status %d, headers %v", r.status, r.header)
	}
	events := parseEvents(r.raw)
	if got := deltas(events); !slices.Equal(got, []string{"Yes, ", "we ship \"abroad\".\nTo the EU."}) {
		t.Errorf("deltas %q", got)
	}
	last := events[len(events)-1]
	if last.name != "done" || len(events) != 3 {
		t.Fatalf("events %+v, want two deltas and done", events)
	}

	// The same answer without the header: its body is the done event's data.
	conv2, _ := e.start()
	fake.handle <- streamed(strings.Join(reply, ""))
	plain := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv2, "text": "Do you ship abroad?"}, nil)
	// Byte for byte, but for the id of each conversation's stored answer.
	msgs, msgs2 := e.messages(conv), e.messages(conv2)
	idOf := func(m []domain.Message) string {
		return `"message_id":"` + strconv.FormatInt(m[len(m)-1].Seq, 10) + `"`
	}
	if !strings.Contains(last.data, idOf(msgs)) || string(plain.raw) != strings.Replace(last.data, idOf(msgs), idOf(msgs2), 1)+"\n" ||
		plain.str("response") != "Yes, we ship \"abroad\".\nTo the EU." {
		t.Errorf("done data %s, plain body %s", last.data, plain.raw)
	}
	if len(msgs) != 2 || msgs[1].Role != domain.RoleAI || msgs[1].Text != "Yes, we ship \"abroad\".\nTo the EU." {
		t.Errorf("stored %+v", msgs)
	}
}

// Any other Accept, or none, is the spec's JSON.
func TestChatStreamOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	e, fake := streamEnv(t, 5*time.Second)
	conv, _ := e.start()
	for _, accept := range []string{"application/json", "text/*", "text/event-stream;q=0"} {
		fake.handle <- streamed(`{"reply": "Hi"}`)
		r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}, map[string]string{"Accept": accept})
		msgs := e.messages(conv)
		if string(r.raw) != `{"response":"Hi","message_id":"`+strconv.FormatInt(msgs[len(msgs)-1].Seq, 10)+`"}`+"\n" {
			t.Errorf("Accept %s: %s", accept, r.raw)
		}
	}
	fake.handle <- streamed(`{"reply": "Hi"}`)
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}, map[string]string{"Accept": "application/json, text/event-stream;q=0.9"})
	if r.header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Errorf("text/event-stream among others: %s %s", r.header.Get("Content-Type"), r.raw)
	}
}

// An error before the first piece of text keeps its status code and JSON
// body; one after it ends the stream with an error event.
func TestChatStreamErrors(t *testing.T) {
	t.Parallel()
	e, fake := streamEnv(t, 300*time.Millisecond)
	conv, _ := e.start()
	chat := func(body map[string]any) response {
		return e.do("POST", "/api/widget/chat", body, acceptStream)
	}
	wantError(t, chat(map[string]any{"key": e.key, "conversation_id": conv}), 400, "")
	wantError(t, chat(map[string]any{"key": "nope", "conversation_id": conv, "text": "hi"}), 403, "")

	fake.handle <- func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "{}", 500) }
	wantError(t, chat(map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}), 502, "")
	fake.handle <- func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	wantError(t, chat(map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}), 504, "")

	mid := []struct {
		name   string
		handle func(http.ResponseWriter, *http.Request)
		status int
	}{
		{"malformed chunk", func(w http.ResponseWriter, _ *http.Request) {
			chunk(w, `{"reply": "Hel`)
			fmt.Fprint(w, "data: {\"choices\": [oops\n\n")
		}, 502},
		{"connection cut", func(w http.ResponseWriter, _ *http.Request) {
			chunk(w, `{"reply": "Hel`)
			conn, _, _ := http.NewResponseController(w).Hijack()
			conn.Close()
		}, 502},
		{"hang", func(w http.ResponseWriter, r *http.Request) {
			chunk(w, `{"reply": "Hel`)
			<-r.Context().Done()
		}, 504},
	}
	for _, tt := range mid {
		fake.handle <- tt.handle
		r := chat(map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"})
		events := parseEvents(r.raw)
		if r.status != 200 || len(events) != 2 || events[0].name != "delta" || events[1].name != "error" {
			t.Fatalf("%s: %d %s", tt.name, r.status, r.raw)
		}
		var body struct {
			Error  string `json:"error"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(events[1].data), &body); body.Status != tt.status || body.Error == "" {
			t.Errorf("%s: error event %s, want status %d", tt.name, events[1].data, tt.status)
		}
	}
	// No AI message was stored for any failure; every visitor message was.
	for _, m := range e.messages(conv) {
		if m.Role != domain.RoleVisitor {
			t.Errorf("stored %+v", m)
		}
	}
}

// The knowledge-base agent streams its one answer as one delta.
func TestChatStreamKnowledgeBase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "opening hours"}, acceptStream)
	events := parseEvents(r.raw)
	if len(events) != 2 || !slices.Equal(deltas(events), []string{"We are open from 9 to 17."}) || events[1].name != "done" ||
		!strings.Contains(events[1].data, `"response":"We are open from 9 to 17."`) {
		t.Fatalf("%s", r.raw)
	}
}

// liveStream starts a streaming chat over a real connection and returns
// its events as they arrive, a cancel that closes the connection, and a
// channel closed when the server's handler has returned.
func liveStream(t *testing.T, e *env, conv, text string) (<-chan sseEvent, context.CancelFunc, <-chan struct{}) {
	t.Helper()
	handled := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handled)
		r.RemoteAddr = "192.0.2.1:5555"
		e.handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(t.Context())
	body, _ := json.Marshal(map[string]any{"key": e.key, "conversation_id": conv, "text": text})
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/widget/chat", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan sseEvent, 16)
	go func() {
		defer res.Body.Close()
		defer close(events)
		readEvents(res.Body, events)
	}()
	return events, cancel, handled
}

// An operator who takes over while the AI writes ends the stream with the
// handoff body; the backend call is cancelled and no AI message stored.
func TestChatStreamTakeover(t *testing.T) {
	t.Parallel()
	e, fake := streamEnv(t, 10*time.Second)
	conv, _ := e.start()
	backendDone := make(chan struct{})
	fake.handle <- func(w http.ResponseWriter, r *http.Request) {
		chunk(w, `{"reply": "Let me`)
		<-r.Context().Done()
		close(backendDone)
	}
	events, _, _ := liveStream(t, e, conv, "Do you ship abroad?")
	if ev := <-events; ev.name != "delta" || ev.data != `{"text":"Let me"}` {
		t.Fatalf("first event %+v", ev)
	}
	if r := e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil); r.status != 200 {
		t.Fatalf("takeover: %d %s", r.status, r.raw)
	}
	if ev := <-events; ev.name != "done" || ev.data != `{"handoff":"human","wait":true}` {
		t.Fatalf("after the takeover: %+v", ev)
	}
	if _, more := <-events; more {
		t.Error("the stream goes on after the handoff body")
	}
	<-backendDone
	if msgs := e.messages(conv); len(msgs) != 1 || msgs[0].Role != domain.RoleVisitor {
		t.Errorf("stored %+v", msgs)
	}
}

// A visitor who closes the tab mid-stream keeps their message; the
// unfinished reply is not stored (docs/api.md) and the backend call ends.
func TestChatStreamVisitorLeaves(t *testing.T) {
	t.Parallel()
	e, fake := streamEnv(t, 10*time.Second)
	conv, _ := e.start()
	backendDone := make(chan struct{})
	fake.handle <- func(w http.ResponseWriter, r *http.Request) {
		chunk(w, `{"reply": "Half an ans`)
		<-r.Context().Done()
		close(backendDone)
	}
	events, leave, handled := liveStream(t, e, conv, "Do you ship abroad?")
	if ev := <-events; ev.name != "delta" {
		t.Fatalf("first event %+v", ev)
	}
	leave()
	<-backendDone
	<-handled
	if msgs := e.messages(conv); len(msgs) != 1 || msgs[0].Text != "Do you ship abroad?" {
		t.Errorf("stored %+v", msgs)
	}
	// The conversation goes on.
	fake.handle <- streamed(`{"reply": "Yes."}`)
	if r := e.chatText(conv, "again?", "en"); r.str("response") != "Yes." {
		t.Errorf("next chat: %s", r.raw)
	}
}

// The per-address rate limit answers a streamed chat as any other: 429
// with Retry-After and the JSON body, before any event.
func TestChatStreamRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 2})
	conv, _ := e.start()
	body := map[string]any{"key": e.key, "conversation_id": conv, "text": "opening hours"}
	if r := e.do("POST", "/api/widget/chat", body, acceptStream); r.status != 200 {
		t.Fatalf("first chat: %d %s", r.status, r.raw)
	}
	r := e.do("POST", "/api/widget/chat", body, acceptStream)
	wantError(t, r, 429, "")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

// A full conversation refuses a streamed chat with the plain 403 (the
// widget starts a new conversation on it): the knowledge-base agent's
// answer streams only once it is stored, so the refusal of the write
// comes before any event.
func TestChatStreamFullConversation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{maxMsgs: 3})
	conv, _ := e.start()
	for range 2 {
		e.chatText(conv, "What are your opening hours?", "en")
	}
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "And on Sunday?"}, acceptStream)
	wantFull(t, r)
}
