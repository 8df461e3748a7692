package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
)

type sample struct {
	Key  *string `json:"key"`
	N    int     `json:"n"`
	Tags []string
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, body string
		status     int // 0: success
	}{
		{"ok", `{"key":"wk_1","n":2}`, 0},
		{"ok with whitespace after", "{\"key\":\"wk_1\"}\n  ", 0},
		{"empty", ``, 400},
		{"syntax", `{"key":`, 400},
		{"bad token", `{key:1}`, 400},
		{"array", `[]`, 400},
		{"string", `"x"`, 400},
		{"wrong type", `{"key":1}`, 400},
		{"wrong nested type", `{"Tags":"a"}`, 400},
		{"unknown field", `{"other":1}`, 400},
		{"trailing object", `{"key":"a"}{"key":"b"}`, 400},
		{"trailing garbage", `{"key":"a"} x`, 400},
		{"too large", `{"key":"` + strings.Repeat("a", MaxBody) + `"}`, 413},
		{"too large after a valid object", `{"key":"a"}` + strings.Repeat(" ", MaxBody), 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
			var v sample
			err := Decode(httptest.NewRecorder(), r, &v)
			if tt.status == 0 {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if status, body := Status(err); status != tt.status || body.Error == "" {
				t.Fatalf("status %d %q, want %d", status, body.Error, tt.status)
			}
		})
	}
}

func TestStatusCatalogue(t *testing.T) {
	tests := []struct {
		err    error
		status int
		reason string
	}{
		{domain.Invalid("bad"), 400, ""},
		{fmt.Errorf("wrapped: %w", domain.ErrKeyInvalid), 403, ""},
		{domain.ErrConversationInvalid, 403, ""},
		{fmt.Errorf("create: %w", domain.ErrQuota), 429, "quota"},
		{domain.ErrSpendCap, 429, "spend_cap"},
		{domain.ErrAIUnavailable, 502, ""},
		{domain.ErrAITimeout, 504, ""},
		{domain.ErrNotFound, 404, ""},
		{fmt.Errorf("feedback: %w", domain.ErrMessageNotFound), 404, ""},
		{domain.ErrConflict, 409, ""},
		{ErrTooLarge, 413, ""},
		{errors.New("disk on fire"), 500, ""},
	}
	for _, tt := range tests {
		status, body := Status(tt.err)
		if status != tt.status || body.Reason != tt.reason || body.LimitReached != (tt.reason != "") {
			t.Errorf("%v: %d %+v, want %d reason %q", tt.err, status, body, tt.status, tt.reason)
		}
		if strings.Contains(body.Error, "wrapped") || strings.Contains(body.Error, "create:") || strings.Contains(body.Error, "feedback:") || strings.Contains(body.Error, "fire") {
			t.Errorf("%v: the body leaks internal context: %q", tt.err, body.Error)
		}
	}
}

func TestJSONHeaders(t *testing.T) {
	rec := httptest.NewRecorder()
	JSON(rec, http.StatusTeapot, map[string]int{"a": 1})
	if rec.Code != 418 || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" || strings.TrimSpace(rec.Body.String()) != `{"a":1}` {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body.String())
	}
}

// A request that failed because its client left is a 499, with a JSON
// body like every error; the same error while the client still waits is
// an unexpected 500.
func TestErrorClientClosed(t *testing.T) {
	gone, leave := context.WithCancel(context.Background())
	leave()
	cases := []struct {
		name   string
		ctx    context.Context
		err    error
		status int
	}{
		{"client gone", gone, fmt.Errorf("add exchange: %w", context.Canceled), StatusClientClosed},
		{"client still there", context.Background(), fmt.Errorf("add exchange: %w", context.Canceled), http.StatusInternalServerError},
		{"client gone, another error", gone, domain.ErrKeyInvalid, http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Error(rec, httptest.NewRequest("POST", "/api/widget/chat", nil).WithContext(c.ctx), c.err)
			var body ErrorBody
			if rec.Code != c.status || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body.Error == "" {
				t.Errorf("got %d %s, want %d with a JSON error", rec.Code, rec.Body, c.status)
			}
		})
	}
}

// A NUL character anywhere in a JSON body, as the \u0000 escape, is a 400;
// the six characters \u0000 as text (an escaped backslash) are not.
func TestDecodeRefusesNUL(t *testing.T) {
	t.Parallel()
	for body, refused := range map[string]bool{
		`{"key":"wk_\u0000"}`:                               true,
		`{"key":"a","Tags":["x","\u0000y"]}`:                true,
		`{"key":"\\u0000"}`:                                 false,
		`{"key":"` + strings.Repeat("a", 5000) + `\u0000"}`: true,
	} {
		var v sample
		err := Decode(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(body)), &v)
		status, b := Status(err)
		switch {
		case refused && (status != 400 || !strings.Contains(b.Error, "NUL")):
			t.Errorf("%.40s: %d %q, want 400 naming NUL", body, status, b.Error)
		case !refused && err != nil:
			t.Errorf("%.40s: %v", body, err)
		}
	}
}

// A refusal that waiting clears is a 429 with Retry-After (whole seconds,
// rounded up) and without limit_reached.
func TestSlowDownError(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	err := fmt.Errorf("init: %w", &domain.SlowDownError{Msg: "too many new conversations", RetryAfter: 90*time.Second + time.Millisecond})
	Error(rec, httptest.NewRequest("POST", "/api/widget/init", nil), err)
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "91" || strings.Contains(rec.Body.String(), "limit_reached") ||
		!strings.Contains(rec.Body.String(), `"error":"too many new conversations"`) {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}
