package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"parley/internal/agent"
)

// collect runs content through a replyStream cut into pieces and returns
// what the visitor was shown, piece by piece.
func collect(pieces []string) []string {
	var shown []string
	s := &replyStream{onDelta: func(t string) { shown = append(shown, t) }}
	for _, p := range pieces {
		s.write(p)
	}
	return shown
}

// cut splits s into pieces of n bytes.
func cut(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// Whatever the chunk borders (one byte at a time, every split in two),
// the streamed preview is the reply string decoded, escapes and
// surrogate pairs included, and nothing of the JSON around it.
func TestReplyStreamAnyChunking(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, content, want string }{
		{"json", `{"reply": "Yes, to the EU.", "quick_replies": ["Cost?"], "unanswered": false}`, "Yes, to the EU."},
		{"escapes", `  {"quick_replies": [], "reply":"Line 1\nSay \"hi\" \\ caf\u00e9 \ud83d\ude00 end"}`, "Line 1\nSay \"hi\" \\ café 😀 end"},
		{"fenced", "```json\n{\"reply\": \"Fenced.\"}\n```", "Fenced."},
		{"plain text", "  We ship to the EU.\nAnd beyond.", "We ship to the EU.\nAnd beyond."},
		{"backticks that are no fence", "`code` first", "`code` first"},
		{"an unclosed reply", `{"reply": "Cut sh`, "Cut sh"},
		{"leading blanks inside the reply", `{"reply": "  \n Hi"}`, "Hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := strings.Join(collect(cut(tt.content, 1)), ""); got != tt.want {
				t.Errorf("byte by byte: %q, want %q", got, tt.want)
			}
			for i := range len(tt.content) + 1 {
				pieces := []string{tt.content[:i], tt.content[i:]}
				if got := strings.Join(collect(pieces), ""); got != tt.want {
					t.Fatalf("split at %d: %q, want %q", i, got, tt.want)
				}
			}
		})
	}
}

// The preview is handed on as it arrives, not held to the end: each piece
// of the reply is shown once its chunk is in.
func TestReplyStreamIsIncremental(t *testing.T) {
	t.Parallel()
	got := collect([]string{`{"reply": "Hel`, `lo`, ` there", "quick_replies": ["x"]}`})
	if want := []string{"Hel", "lo", " there"}; !slices.Equal(got, want) {
		t.Errorf("shown %q, want %q", got, want)
	}
}

func respondStream(t *testing.T, r *Responder) (agent.Reply, []string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var deltas []string
	reply, err := r.RespondStream(ctx, testRequest(), func(s string) { deltas = append(deltas, s) })
	return reply, deltas, err
}

// RespondStream asks the backend to stream (even with Stream off in the
// config) and returns the whole parsed reply after the deltas.
func TestRespondStream(t *testing.T) {
	t.Parallel()
	fake := newFakeServer(t, sse(`{"reply": "Yes, `, `to the EU.", "quick_`, `replies": ["Cost?"]}`))
	r := New(Config{BaseURL: fake.baseURL(), Model: "m"}, Deps{})
	reply, deltas, err := respondStream(t, r)
	if err != nil || reply.Text != "Yes, to the EU." || !slices.Equal(reply.Options, []string{"Cost?"}) {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	if want := []string{"Yes, ", "to the EU."}; !slices.Equal(deltas, want) {
		t.Errorf("deltas %q, want %q", deltas, want)
	}
	if reqs := fake.requests(); len(reqs) != 1 || !reqs[0].Body.Stream {
		t.Errorf("requests %+v, want one with stream=true", reqs)
	}
}

// A backend that fails mid-stream fails the reply (after the deltas it
// sent): a broken chunk, an error object, a connection cut.
func TestRespondStreamFailsMidStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		handle func(http.ResponseWriter, *http.Request, int)
	}{
		{"malformed chunk", func(w http.ResponseWriter, _ *http.Request, _ int) {
			writeChunk(w, map[string]any{"content": `{"reply": "Hel`}, nil)
			_, _ = w.Write([]byte("data: {\"choices\": [\n\n"))
		}},
		{"error object", func(w http.ResponseWriter, _ *http.Request, _ int) {
			writeChunk(w, map[string]any{"content": `{"reply": "Hel`}, nil)
			_, _ = w.Write([]byte(`data: {"error": {"code": "server_error"}}` + "\n\n"))
		}},
		{"connection cut", func(w http.ResponseWriter, _ *http.Request, _ int) {
			writeChunk(w, map[string]any{"content": `{"reply": "Hel`}, nil)
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = buf.Flush()
				conn.Close()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeServer(t, tt.handle)
			r := New(Config{BaseURL: fake.baseURL(), Model: "m", MaxRetries: -1}, Deps{})
			_, deltas, err := respondStream(t, r)
			if !errors.Is(err, ErrBackend) {
				t.Errorf("err = %v, want ErrBackend", err)
			}
			if !slices.Equal(deltas, []string{"Hel"}) {
				t.Errorf("deltas %q, want the one sent before the failure", deltas)
			}
		})
	}
}

// The last chunk may carry usage and no choices (stream_options
// include_usage): it is no content and no failure.
func TestRespondStreamUsageChunk(t *testing.T) {
	t.Parallel()
	fake := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeChunk(w, map[string]any{"content": `{"reply": "Hi"}`}, nil)
		usage, _ := json.Marshal(map[string]any{"choices": []any{}, "usage": map[string]int{"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}})
		_, _ = w.Write([]byte("data: " + string(usage) + "\n\ndata: [DONE]\n\n"))
	})
	reply, deltas, err := respondStream(t, New(Config{BaseURL: fake.baseURL(), Model: "m"}, Deps{}))
	if err != nil || reply.Text != "Hi" || !slices.Equal(deltas, []string{"Hi"}) {
		t.Errorf("reply %+v, deltas %q, %v", reply, deltas, err)
	}
}
