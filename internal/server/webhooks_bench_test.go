package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"parley/internal/chat"
	"parley/internal/store"
	"parley/internal/webhooks"
)

type noQueue struct{}

func (noQueue) EnqueueWebhook(context.Context, string) error { return nil }

// BenchmarkChatHandlerWebhooks is BenchmarkChatHandler with the webhooks
// service as the chat's emitter and no endpoint in the account, the
// common case: what the events cost a chat that sends none
// (docs/benchmarks.md, "Webhooks on the chat path").
func BenchmarkChatHandlerWebhooks(b *testing.B) {
	e := newEnvTB(b, envOptions{maxMsgs: 1 << 40, emitter: func(st store.Store) chat.Emitter {
		return webhooks.New(webhooks.Options{Store: st, Queue: noQueue{}})
	}})
	conv, _ := e.start()
	body, _ := json.Marshal(map[string]any{"key": e.key, "conversation_id": conv, "text": "What are your opening hours?"})
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("POST", "/api/widget/chat", bytes.NewReader(body))
			req.RemoteAddr = "192.0.2.1:5555"
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("chat: %d %s", rec.Code, rec.Body)
			}
		}
	})
}
