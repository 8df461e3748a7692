package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	secretKey  = "sk-test-SECRET-0123456789"
	secretBody = "body-text-that-must-not-leak"
)

// errorBody is an OpenAI-style error that quotes the key, as some servers
// do in their "invalid key" messages.
const errorBody = `{"error": {"message": "` + secretBody + ` key ` + secretKey + `", "type": "invalid_request_error", "code": "invalid_api_key"}}`

func TestRespondBackendErrors(t *testing.T) {
	tests := []struct {
		name     string
		stream   bool
		handle   func(http.ResponseWriter, *http.Request, int)
		requests int // how many the server must see: MaxRetries is 2
	}{
		{"500 retried then fails", false, status(500, errorBody), 3},
		{"500 streamed retried then fails", true, status(500, errorBody), 3},
		{"500 with a plain-text body", false, status(500, secretBody+" "+secretKey), 3},
		{"429 retried then fails", false, status(429, errorBody), 3},
		{"401 not retried", false, status(401, errorBody), 1},
		{"401 streamed not retried", true, status(401, errorBody), 1},
		{"400 without an error object", false, status(400, `["`+secretBody+`"]`), 1},
		{"malformed json body", false, body(`{"id": "x", "choices": [` + secretBody + secretKey), 1},
		{"html instead of json", false, html, 1},
		{"malformed stream chunk", true, brokenStream, 1},
		{"stream error event", true, streamErrorEvent, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.handle)
			log, logs := testLogger()
			r := New(Config{BaseURL: srv.baseURL(), APIKey: secretKey, Model: "m", Stream: tt.stream}, Deps{Logger: log})
			got, err := respond(t, r, testRequest())
			if !errors.Is(err, ErrBackend) {
				t.Fatalf("Respond = %+v, %v; want ErrBackend", got, err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err %v reads as a timeout", err)
			}
			assertNoLeak(t, err.Error(), logs.String())
			if n := len(srv.requests()); n != tt.requests {
				t.Errorf("server saw %d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestRespondRecoversOnRetry(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 2 {
			status(503, errorBody)(w, r, n)
			return
		}
		completion("Back again.")(w, r, n)
	})
	r := New(Config{BaseURL: srv.baseURL(), Model: "m"}, Deps{})
	got, err := respond(t, r, testRequest())
	if err != nil || got.Text != "Back again." {
		t.Fatalf("Respond = %+v, %v; want the third answer", got, err)
	}
}

func TestRespondMaxRetries(t *testing.T) {
	tests := []struct {
		maxRetries int
		requests   int
	}{
		{0, 3}, // the default, 2
		{-1, 1},
		{1, 2},
		{4, 5},
	}
	for _, tt := range tests {
		srv := newFakeServer(t, status(500, errorBody))
		r := New(Config{BaseURL: srv.baseURL(), Model: "m", MaxRetries: tt.maxRetries}, Deps{})
		if _, err := respond(t, r, testRequest()); !errors.Is(err, ErrBackend) {
			t.Errorf("MaxRetries %d: err = %v, want ErrBackend", tt.maxRetries, err)
		}
		if n := len(srv.requests()); n != tt.requests {
			t.Errorf("MaxRetries %d: server saw %d requests, want %d", tt.maxRetries, n, tt.requests)
		}
	}
}

// A server asking to be retried only after the deadline gets its error
// back at once instead of a wait that could only end in a timeout.
func TestRespondRetryAfterBeyondDeadline(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	r := New(Config{BaseURL: srv.baseURL(), Model: "m"}, Deps{})
	_, err := respond(t, r, testRequest())
	if !errors.Is(err, ErrBackend) || !strings.Contains(err.Error(), "429") {
		t.Fatalf("err = %v, want ErrBackend with status 429", err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestRespondConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	log, logs := testLogger()
	r := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: secretKey, Model: "m", MaxRetries: -1}, Deps{Logger: log})
	_, err = respond(t, r, testRequest())
	if !errors.Is(err, ErrBackend) {
		t.Fatalf("err = %v, want ErrBackend", err)
	}
	assertNoLeak(t, err.Error(), logs.String())
}

// A hung server is cut at ctx's deadline, whether it hangs before the
// response or in the middle of a stream, and the error reads as a timeout.
func TestRespondHangCutByDeadline(t *testing.T) {
	tests := []struct {
		name   string
		stream bool
		handle func(http.ResponseWriter, *http.Request, int)
	}{
		{"before the response", false, hang},
		{"before the stream", true, hang},
		{"mid-stream", true, hangMidStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.handle)
			r := New(Config{BaseURL: srv.baseURL(), Model: "m", Stream: tt.stream}, Deps{})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			got, err := r.Respond(ctx, testRequest())
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Respond = %+v, %v; want context.DeadlineExceeded", got, err)
			}
		})
	}
}

func assertNoLeak(t *testing.T, errText, logText string) {
	t.Helper()
	for _, secret := range []string{secretKey, secretBody} {
		if strings.Contains(errText, secret) {
			t.Errorf("error %q contains %q", errText, secret)
		}
	}
	if strings.Contains(logText, secretKey) {
		t.Errorf("log contains the API key:\n%s", logText)
	}
	if !strings.Contains(logText, "agent=ag1") {
		t.Errorf("log does not name the agent:\n%s", logText)
	}
}

func html(w http.ResponseWriter, _ *http.Request, _ int) {
	w.Header().Set("Content-Type", "text/html")
	_, _ = w.Write([]byte("<html>" + secretBody + "</html>"))
}

func brokenStream(w http.ResponseWriter, _ *http.Request, _ int) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write([]byte("data: {\"choices\": [" + secretBody + "\n\n"))
}

func streamErrorEvent(w http.ResponseWriter, _ *http.Request, _ int) {
	w.Header().Set("Content-Type", "text/event-stream")
	writeChunk(w, map[string]any{"role": "assistant", "content": "Hel"}, nil)
	_, _ = w.Write([]byte("data: " + errorBody + "\n\n"))
}

// A base URL may carry secrets of its own (a password in the user info, a
// key in the query); a logged failure never shows them. (The SDK drops the
// base URL's query and net/http masks the password in the URLs its errors
// quote; this keeps it so. The start line's base_url is redacted by
// cmd/parley.)
func TestBackendErrorLogsNoURLSecrets(t *testing.T) {
	srv := newFakeServer(t, status(401, errorBody))
	log, logs := testLogger()
	base := strings.Replace(srv.baseURL(), "http://", "http://user:S3cretPW@", 1) + "?key=S3cretPW"
	r := New(Config{BaseURL: base, Model: "m"}, Deps{Logger: log})
	if _, err := respond(t, r, testRequest()); !errors.Is(err, ErrBackend) {
		t.Fatalf("err = %v, want ErrBackend", err)
	}
	if !strings.Contains(logs.String(), "LLM call failed") || strings.Contains(logs.String(), "S3cretPW") {
		t.Fatalf("log:\n%s", logs.String())
	}
}
