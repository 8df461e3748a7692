package server

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"parley/internal/testsvc"
	"testing"
)

// BenchmarkChatHandler is one visitor message end to end through the whole
// handler (decode, key and conversation lookups, store the message, the
// knowledge-base answer, store the reply, encode) on SQLite, in parallel so
// that writes share group commits as they do under load. Numbers in
// docs/benchmarks.md; timings are never asserted.
//
// All its chats go to one conversation: the cap on messages per
// conversation is set out of reach (still checked on every chat).
func BenchmarkChatHandler(b *testing.B) { benchChat(b, "") }

// BenchmarkChatHandlerOrigin is BenchmarkChatHandler from a page on a
// site: each chat is counted by the origins recorder (written once an
// hour, internal/origins).
func BenchmarkChatHandlerOrigin(b *testing.B) { benchChat(b, "https://shop.example") }

func benchChat(b *testing.B, origin string) {
	e := newEnvTB(b, envOptions{maxMsgs: 1 << 40})
	conv, _ := e.start()
	body, _ := json.Marshal(map[string]any{"key": e.key, "conversation_id": conv, "text": "What are your opening hours?"})
	b.ReportAllocs()
	b.ResetTimer()
	defer testsvc.CPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("POST", "/api/widget/chat", bytes.NewReader(body))
			req.RemoteAddr = "192.0.2.1:5555"
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("chat: %d %s", rec.Code, rec.Body)
			}
		}
	})
}

// BenchmarkPollHandler is a short poll end to end (reads only).
func BenchmarkPollHandler(b *testing.B) {
	e := newEnvTB(b, envOptions{})
	conv, _ := e.start()
	path := "/api/widget/poll?key=" + e.key + "&conversation_id=" + conv
	b.ReportAllocs()
	b.ResetTimer()
	defer testsvc.CPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", path, nil)
			req.RemoteAddr = "192.0.2.1:5555"
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("poll: %d", rec.Code)
			}
		}
	})
}
