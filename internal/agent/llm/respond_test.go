package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
)

// testTimeout only keeps a broken test from hanging; no test depends on
// how fast anything is.
const testTimeout = 10 * time.Second

func testRequest() agent.Request {
	return agent.Request{
		Agent:          domain.Agent{ID: "ag1", ChatbotName: "Ana", Config: domain.DecodeAgentConfig([]byte(`{}`))},
		ConversationID: "c1",
		Text:           "Do you ship abroad?",
		Lang:           "en",
	}
}

func respond(t *testing.T, r *Responder, req agent.Request) (agent.Reply, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return r.Respond(ctx, req)
}

func TestRespondReplies(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    agent.Reply
	}{
		{"plain text", "  We ship to the EU.\n", agent.Reply{Text: "We ship to the EU."}},
		{
			"json with quick replies",
			`{"reply": "Yes, to the EU.", "quick_replies": ["Shipping cost?", "Delivery time?"]}`,
			agent.Reply{Text: "Yes, to the EU.", Options: []string{"Shipping cost?", "Delivery time?"}},
		},
		{
			"json in code fences",
			"```json\n{\"reply\": \"Yes.\", \"quick_replies\": [\"Cost?\"]}\n```",
			agent.Reply{Text: "Yes.", Options: []string{"Cost?"}},
		},
		{"json without quick replies", `{"reply": "Yes."}`, agent.Reply{Text: "Yes."}},
		{"partial json is plain text", `{"reply": "Yes, we sh`, agent.Reply{Text: `{"reply": "Yes, we sh`}},
		{"json without reply is plain text", `{"answer": "Yes"}`, agent.Reply{Text: `{"answer": "Yes"}`}},
	}
	for _, stream := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if stream {
				name += " streamed"
			}
			t.Run(name, func(t *testing.T) {
				handle := completion(tt.content)
				if stream {
					handle = sse(split(tt.content, 5)...)
				}
				srv := newFakeServer(t, handle)
				r := New(Config{BaseURL: srv.baseURL(), Model: "m", Stream: stream}, Deps{})
				got, err := respond(t, r, testRequest())
				if err != nil {
					t.Fatalf("Respond: %v", err)
				}
				if got.Text != tt.want.Text || !slices.Equal(got.Options, tt.want.Options) || got.Unanswered {
					t.Errorf("Respond = %+v, want %+v", got, tt.want)
				}
				if reqs := srv.requests(); len(reqs) != 1 || reqs[0].Body.Stream != stream {
					t.Errorf("server saw %+v, want one request with stream=%v", reqs, stream)
				}
			})
		}
	}
}

// split cuts s into deltas of n bytes, as a streaming server would send
// it. The tests' contents are ASCII, so no cut splits a character.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// One responder serves many conversations at once (under -race).
func TestRespondConcurrent(t *testing.T) {
	srv := newFakeServer(t, completion("ok"))
	r := New(Config{BaseURL: srv.baseURL(), Model: "m"}, Deps{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := respond(t, r, testRequest())
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestRespondEmptyIsError(t *testing.T) {
	tests := []struct {
		name   string
		stream bool
		handle func(http.ResponseWriter, *http.Request, int)
	}{
		{"empty content", false, completion("")},
		{"blank content", false, completion(" \n ")},
		{"empty json reply", false, completion(`{"reply": " ", "quick_replies": ["Hi"]}`)},
		{"no choices", false, body(`{"id":"x","object":"chat.completion","choices":[]}`)},
		{"refusal", false, body(`{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`)},
		{"empty stream", true, sse()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.handle)
			r := New(Config{BaseURL: srv.baseURL(), Model: "m", Stream: tt.stream}, Deps{})
			got, err := respond(t, r, testRequest())
			if !errors.Is(err, ErrBackend) {
				t.Fatalf("Respond = %+v, %v; want ErrBackend", got, err)
			}
		})
	}
}

// body answers 200 with a raw JSON body.
func body(b string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, b)
	}
}
