package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// fakeServer is an in-process OpenAI-compatible server. It records every
// request and answers with handle, which is told the request's number
// (0 for the first).
type fakeServer struct {
	*httptest.Server
	handle func(w http.ResponseWriter, r *http.Request, n int)

	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	Method, Path, Auth string
	Body               chatRequest
}

// chatRequest is the part of a Chat Completions request the tests check.
type chatRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func newFakeServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeServer {
	t.Helper()
	f := &fakeServer{handle: handle}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw)) // for handlers that read the prompt
	var body chatRequest
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	n := len(f.seen)
	f.seen = append(f.seen, seenRequest{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Body: body})
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	f.handle(w, r, n)
}

// baseURL is the API root a client is configured with; the client appends
// "chat/completions" to it.
func (f *fakeServer) baseURL() string { return f.URL + "/v1" }

func (f *fakeServer) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

// completion answers with a non-streamed completion holding content.
func completion(content string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		msg, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{
				"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content},
			}},
		})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(msg)
	}
}

// sse answers with a streamed completion whose deltas are parts, followed
// by a finishing chunk and [DONE].
func sse(parts ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, p := range parts {
			delta := map[string]any{"content": p}
			if i == 0 {
				delta["role"] = "assistant"
			}
			writeChunk(w, delta, nil)
		}
		stop := "stop"
		writeChunk(w, map[string]any{}, &stop)
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}
}

func writeChunk(w http.ResponseWriter, delta map[string]any, finish *string) {
	chunk, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	_, _ = fmt.Fprintf(w, "data: %s\n\n", chunk)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

// status answers with code and body. Retry-After-Ms: 1 keeps the client's
// retries from waiting out its backoff.
func status(code int, body string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After-Ms", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// hang never answers; it returns when the client goes away.
func hang(w http.ResponseWriter, r *http.Request, _ int) {
	<-r.Context().Done()
}

// hangMidStream sends one delta, then hangs.
func hangMidStream(w http.ResponseWriter, r *http.Request, _ int) {
	w.Header().Set("Content-Type", "text/event-stream")
	writeChunk(w, map[string]any{"role": "assistant", "content": "Hel"}, nil)
	<-r.Context().Done()
}

// logBuffer is a slog destination safe to read after the calls are done.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func testLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}
