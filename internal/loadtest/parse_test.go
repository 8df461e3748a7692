package loadtest

import (
	"errors"
	"strings"
	"testing"
)

// parseAnswer sees a response the way the engines read it: a few bytes at
// a time. Every prefix of a complete response must be errIncomplete (or,
// for a body that runs to the close, complete only at EOF), and the whole
// must give the same answer however it arrived.
func TestParseAnswerAtEverySplit(t *testing.T) {
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	cases := []struct {
		name    string
		resp    string
		toEOF   bool // complete only once the connection ends
		status  int
		body    string
		closing bool
	}{
		{"Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, 200, "hello", false},
		{"empty Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, 200, "", false},
		{"no reason phrase", "HTTP/1.1 429\r\ncontent-length: 2\r\n\r\n{}", false, 429, "{}", false},
		{"Connection: close", "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 3\r\n\r\nbye", false, 200, "bye", true},
		{"chunked, extensions and trailers", chunked + "5;x=y\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Sum: 1\r\n\r\n", false, 200, "hello world", false},
		{"chunked wins over Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwins\r\n0\r\n\r\n", false, 200, "wins", false},
		{"204 has no body", "HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", false, 204, "", false},
		{"304 has no body", "HTTP/1.1 304 Not Modified\r\n\r\n", false, 304, "", false},
		{"body to the close", "HTTP/1.1 200 OK\r\n\r\nall of it", true, 200, "all of it", true},
		{"HTTP/1.0, body to the close", "HTTP/1.0 200 OK\r\n\r\nold", true, 200, "old", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var chunks []byte
			for i := 0; i < len(c.resp); i++ {
				if _, err := parseAnswer([]byte(c.resp[:i]), false, &chunks); err != errIncomplete {
					t.Fatalf("after %d of %d bytes: %v, want errIncomplete", i, len(c.resp), err)
				}
			}
			a, err := parseAnswer([]byte(c.resp), c.toEOF, &chunks)
			if err != nil {
				t.Fatalf("whole response: %v", err)
			}
			if a.status != c.status || string(a.body) != c.body || a.closing != c.closing || a.size != len(c.resp) {
				t.Errorf("got %d %q closing=%v size=%d, want %d %q closing=%v size=%d",
					a.status, a.body, a.closing, a.size, c.status, c.body, c.closing, len(c.resp))
			}
			if c.toEOF {
				if _, err := parseAnswer([]byte(c.resp), false, &chunks); err != errIncomplete {
					t.Errorf("before the close: %v, want errIncomplete", err)
				}
			}
		})
	}
}

// What follows an answer — the next one, on a connection the server
// writes ahead — is not part of it: size says where it ended.
func TestParseAnswerLeavesWhatFollows(t *testing.T) {
	first := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	second := "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nnew\r\n0\r\n\r\n"
	in := []byte(first + second)
	var chunks []byte
	a, err := parseAnswer(in, false, &chunks)
	if err != nil || a.status != 200 || string(a.body) != "ok" || a.size != len(first) {
		t.Fatalf("first = %d %q size %d, %v", a.status, a.body, a.size, err)
	}
	b, err := parseAnswer(in[a.size:], false, &chunks)
	if err != nil || b.status != 201 || string(b.body) != "new" || b.size != len(second) {
		t.Fatalf("second = %d %q size %d, %v", b.status, b.body, b.size, err)
	}
}

// A response that cannot become valid fails as soon as that shows — not
// after waiting for bytes that will never make it right — and one cut
// short by the close fails at EOF.
func TestParseAnswerMalformed(t *testing.T) {
	cases := []struct {
		name, resp string
		atEOF      bool
	}{
		{"not HTTP at all", "garbage\r\n", false},
		{"not HTTP, a few bytes", "bad", false},
		{"not HTTP/1.x", "HTTP/2 200 OK\r\n\r\n", false},
		{"status line cut short", "HTTP/1.1 20\r\n\r\n", false},
		{"status code not a number", "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", false},
		{"status code too long", "HTTP/1.1 2000 OK\r\n\r\n", false},
		{"header without a colon", "HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 0\r\n\r\n", false},
		{"Content-Length not a number", "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n0123456789", false},
		{"negative Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false},
		{"chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", false},
		{"chunk longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n", false},
		{"nothing before the close", "", true},
		{"headers cut off by the close", "HTTP/1.1 200 OK\r\nContent-Le", true},
		{"body shorter than its Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true},
		{"chunked body cut off", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var chunks []byte
			if _, err := parseAnswer([]byte(c.resp), c.atEOF, &chunks); !errors.Is(err, errMalformed) {
				t.Errorf("parseAnswer(%q, atEOF=%v) = %v, want errMalformed", c.resp, c.atEOF, err)
			}
		})
	}
}

// The request bytes both engines send.
func TestAppendRequest(t *testing.T) {
	cases := []struct {
		name, method, target string
		body                 []byte
		want                 string
	}{
		{"GET", "GET", "/api/widget/poll?wait=0", nil,
			"GET /api/widget/poll?wait=0 HTTP/1.1\r\nHost: h:1\r\nUser-Agent: parley-load\r\n\r\n"},
		{"POST", "POST", "/api/widget/chat", []byte(`{"a":1}`),
			"POST /api/widget/chat HTTP/1.1\r\nHost: h:1\r\nUser-Agent: parley-load\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}"},
		{"POST an empty body", "POST", "/x", []byte{},
			"POST /x HTTP/1.1\r\nHost: h:1\r\nUser-Agent: parley-load\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(appendRequest([]byte("stale"), c.method, c.target, "h:1", c.body)); got != "stale"+c.want {
				t.Errorf("got %q, want %q", strings.TrimPrefix(got, "stale"), c.want)
			}
		})
	}
}
