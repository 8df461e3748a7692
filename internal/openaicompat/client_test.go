package openaicompat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// server answers every request with handle, told the request's number
// (0 for the first), and counts them.
func server(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) (*Client, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(w, r, int(n.Add(1)-1))
	}))
	t.Cleanup(srv.Close)
	return &Client{BaseURL: srv.URL + "/v1/", APIKey: "sk-1", HTTP: srv.Client()}, &n
}

func chatReq(stream bool) ChatRequest {
	return ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "Hi"}}, Stream: stream}
}

func TestChatRequestAndAnswer(t *testing.T) {
	t.Parallel()
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var body struct {
			Model    string    `json:"model"`
			Messages []Message `json:"messages"`
			Stream   *bool     `json:"stream"`
		}
		err := json.NewDecoder(r.Body).Decode(&body)
		if err != nil || r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" ||
			r.Header.Get("Authorization") != "Bearer sk-1" || r.Header.Get("Content-Type") != "application/json" ||
			body.Model != "m" || len(body.Messages) != 1 || body.Messages[0] != (Message{"user", "Hi"}) || body.Stream != nil {
			t.Errorf("request %s %s auth %q body %+v (%v)", r.Method, r.URL.Path, r.Header.Get("Authorization"), body, err)
		}
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"}},{"index":1,"message":{"content":"no"}}]}`)
	})
	got, err := c.Chat(t.Context(), chatReq(false), Retry{})
	if err != nil || got != (ChatReply{Content: "Hello!"}) {
		t.Fatalf("Chat = %+v, %v", got, err)
	}
}

func TestChatWithoutKeySendsNoAuthorization(t *testing.T) {
	t.Parallel()
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if _, ok := r.Header["Authorization"]; ok {
			t.Errorf("Authorization %q sent without a key", r.Header.Get("Authorization"))
		}
		io.WriteString(w, `{"choices":[{"message":{"content":"ok"}}]}`)
	})
	c.APIKey = ""
	if _, err := c.Chat(t.Context(), chatReq(false), Retry{}); err != nil {
		t.Fatal(err)
	}
}

func TestChatStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want ChatReply
		err  error
	}{
		{"deltas until DONE", "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n" +
			": a comment\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}},{\"index\":1,\"delta\":{\"content\":\"X\"}}]}\n\n" +
			"data: [DONE]\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"after\"}}]}\n\n",
			ChatReply{Content: "Hello"}, nil},
		{"CRLF lines, no space after the colon", "data:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\ndata:[DONE]\r\n\r\n",
			ChatReply{Content: "a"}, nil},
		{"ends without DONE or a blank line", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}",
			ChatReply{Content: "ab"}, nil},
		{"a chunk longer than the read buffer", "data: {\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("a", 10000) + "\"}}]}\n\n",
			ChatReply{Content: strings.Repeat("a", 10000)}, nil},
		{"a refusal", "data: {\"choices\":[{\"delta\":{\"refusal\":\"I can't\"}}]}\n\n", ChatReply{Refusal: "I can't"}, nil},
		{"an error object mid-stream", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
			"data: {\"error\":{\"message\":\"SECRET\",\"code\":\"server_error\"}}\n\n", ChatReply{}, &Error{StatusCode: 200, Code: "server_error"}},
		{"an error event", "event: error\ndata: {\"message\":\"SECRET\"}\n\n", ChatReply{}, &Error{StatusCode: 200}},
		{"a broken chunk", "data: {\"choices\": [SECRET\n\n", ChatReply{}, ErrInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if r.Header.Get("Accept") != "text/event-stream" {
					t.Errorf("Accept %q", r.Header.Get("Accept"))
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tt.body)
			})
			got, err := c.Chat(t.Context(), chatReq(true), Retry{})
			if tt.err == nil && (err != nil || got != tt.want) {
				t.Fatalf("Chat = %+v, %v; want %+v", got, err, tt.want)
			}
			if tt.err != nil {
				assertErr(t, err, tt.err)
			}
		})
	}
}

// assertErr checks err against want: the same *Error, or wrapping want.
func assertErr(t *testing.T, err, want error) {
	t.Helper()
	var apiErr *Error
	if w, ok := want.(*Error); ok {
		if !errors.As(err, &apiErr) || *apiErr != *w {
			t.Fatalf("err = %v, want %v", err, want)
		}
	} else if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error %q quotes the answer", err)
	}
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"an error object", 401, `{"error":{"message":"SECRET sk-1","type":"invalid_request_error","code":"invalid_api_key"}}`,
			&Error{StatusCode: 401, Code: "invalid_api_key", Type: "invalid_request_error"}},
		{"a numeric code", 400, `{"error":{"message":"SECRET","code":400}}`, &Error{StatusCode: 400, Code: "400"}},
		{"a bare string error", 404, `{"error":"SECRET"}`, &Error{StatusCode: 404}},
		{"no JSON at all", 403, `<html>SECRET</html>`, &Error{StatusCode: 403}},
		{"an error object with status 200", 200, `{"error":{"message":"SECRET","code":"x"}}`, &Error{StatusCode: 200, Code: "x"}},
		{"HTML with status 200", 200, `<html>SECRET</html>`, ErrInvalidResponse},
		{"broken JSON", 200, `{"choices":[SECRET`, ErrInvalidResponse},
		{"too long", 200, `{"choices":[{"message":{"content":"` + strings.Repeat("a", maxBody) + `"}}]}`, ErrInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, n := server(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := c.Chat(t.Context(), chatReq(false), Retry{Max: 2})
			assertErr(t, err, tt.want)
			if n.Load() != 1 {
				t.Errorf("%d requests, want 1 (not retried)", n.Load())
			}
		})
	}
}

// A server that answers 503 twice and then a completion is retried
// through; retries stop at Max.
func TestChatRetries(t *testing.T) {
	t.Parallel()
	flaky := func(failures int, header, value string) func(http.ResponseWriter, *http.Request, int) {
		return func(w http.ResponseWriter, _ *http.Request, n int) {
			if n < failures {
				w.Header().Set(header, value)
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, `{"choices":[{"message":{"content":"ok"}}]}`)
		}
	}
	tests := []struct {
		name     string
		handle   func(http.ResponseWriter, *http.Request, int)
		retry    Retry
		requests int32
		ok       bool
	}{
		{"recovers", flaky(2, "Retry-After-Ms", "1"), Retry{Max: 2}, 3, true},
		{"gives up after Max", flaky(3, "Retry-After-Ms", "1"), Retry{Max: 2}, 3, false},
		{"no retries", flaky(1, "Retry-After-Ms", "1"), Retry{}, 1, false},
		{"Retry-After in seconds", flaky(1, "Retry-After", "0"), Retry{Max: 1}, 2, true},
		{"a wait beyond MaxDelay is not made", flaky(1, "Retry-After", "3600"), Retry{Max: 2, MaxDelay: time.Second}, 1, false},
		{"x-should-retry false", flaky(1, "X-Should-Retry", "false"), Retry{Max: 2}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, n := server(t, tt.handle)
			got, err := c.Chat(t.Context(), chatReq(false), tt.retry)
			if ok := err == nil && got.Content == "ok"; ok != tt.ok {
				t.Errorf("Chat = %+v, %v; want success %v", got, err, tt.ok)
			}
			if n.Load() != tt.requests {
				t.Errorf("%d requests, want %d", n.Load(), tt.requests)
			}
		})
	}
}

// A transport error is retried unless Final says it is final.
func TestChatTransportErrors(t *testing.T) {
	t.Parallel()
	errRefused := errors.New("refused by policy")
	var dials atomic.Int32
	c := &Client{BaseURL: "http://backend.invalid/v1", HTTP: &http.Client{Transport: roundTripper(func(*http.Request) (*http.Response, error) {
		dials.Add(1)
		return nil, errRefused
	})}}
	_, err := c.Chat(t.Context(), chatReq(false), Retry{Max: 2, MaxDelay: time.Millisecond})
	if !errors.Is(err, errRefused) || dials.Load() != 3 {
		t.Errorf("err %v after %d attempts, want errRefused after 3", err, dials.Load())
	}
	dials.Store(0)
	_, err = c.Chat(t.Context(), chatReq(false), Retry{Max: 2, Final: func(err error) bool { return errors.Is(err, errRefused) }})
	if !errors.Is(err, errRefused) || dials.Load() != 1 {
		t.Errorf("err %v after %d attempts, want errRefused after 1", err, dials.Load())
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A wait between retries ends with ctx.
func TestChatRetryWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	c, n := server(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	ctx, cancel := context.WithCancel(t.Context())
	c.HTTP.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
		res, err := http.DefaultTransport.RoundTrip(r)
		cancel() // the first answer arrives; the retry's wait must end now
		return res, err
	})
	_, err := c.Chat(ctx, chatReq(false), Retry{Max: 2, MaxDelay: time.Hour})
	if !errors.Is(err, context.Canceled) || n.Load() != 1 {
		t.Errorf("err %v after %d requests, want context.Canceled after 1", err, n.Load())
	}
}

func TestAskedDelay(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header, value string
		want          time.Duration
		ok            bool
	}{
		{"Retry-After-Ms", "250.5", 250500 * time.Microsecond, true},
		{"Retry-After", "2", 2 * time.Second, true},
		{"Retry-After", now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second, true},
		{"Retry-After", now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"Retry-After", "soon", 0, false},
		{"Retry-After", "-1", 0, false},
		{"X-Other", "1", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		h.Set(tt.header, tt.value)
		if got, ok := askedDelay(h, now); got != tt.want || ok != tt.ok {
			t.Errorf("%s: %s → %v, %v; want %v, %v", tt.header, tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

// Backoff doubles from 0.5 s to 8 s, less at most a quarter of jitter.
func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt, base := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second} {
		for range 50 {
			if d := backoff(attempt); d > base || d < base*3/4 {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, base*3/4, base)
			}
		}
	}
	if d := backoff(1 << 20); d > DefaultMaxDelay {
		t.Errorf("backoff of a huge attempt = %v", d)
	}
}

// OnDelta is handed each piece as its chunk arrives: the server sends the
// second chunk only after the client has shown the first, so a client that
// waited for the whole answer would never finish.
func TestChatStreamOnDelta(t *testing.T) {
	t.Parallel()
	first := make(chan struct{})
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-first:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"\"}},{\"index\":1,\"delta\":{\"content\":\"X\"}}]}\n\n"+
			"data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n"+
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	})
	req := chatReq(true)
	var got []string
	req.OnDelta = func(s string) {
		if got = append(got, s); len(got) == 1 {
			close(first)
		}
	}
	reply, err := c.Chat(t.Context(), req, Retry{})
	if err != nil || reply.Content != "Hello" {
		t.Fatalf("Chat = %+v, %v", reply, err)
	}
	if strings.Join(got, "|") != "Hel|lo" {
		t.Errorf("deltas %q, want Hel, lo (no empty piece, no other choice)", got)
	}
}
