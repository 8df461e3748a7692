package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
)

func TestInit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "page_url": "https://shop.example/p/1"}, nil)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	if !strings.HasPrefix(r.str("conversation_id"), "cv_") || r.str("visitor_id") == "" || r.str("chatbot_name") != "Helper" {
		t.Fatalf("unexpected body %s", r.raw)
	}
	cfg, ok := r.body["config"].(map[string]any)
	if !ok || cfg["color"] != "#123456" || cfg["greeting"] != "Hi" {
		t.Fatalf("config = %v, want the agent's public config", r.body["config"])
	}
	if _, leaked := cfg["llm"]; leaked {
		t.Fatal("init leaked the private llm config")
	}
	conv, err := e.store.Conversation(context.Background(), r.str("conversation_id"))
	if err != nil || conv.PageURL != "https://shop.example/p/1" || conv.Mode != domain.ModeAI {
		t.Fatalf("stored conversation %+v, %v", conv, err)
	}

	// A returning visitor keeps their id; each init is a new conversation.
	r2 := e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": "visitor-42"}, nil)
	r3 := e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": "visitor-42"}, nil)
	if r2.str("visitor_id") != "visitor-42" || r2.str("conversation_id") == r3.str("conversation_id") {
		t.Fatalf("returning visitor: %s / %s", r2.raw, r3.raw)
	}
}

func TestInitErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	inactive, _ := e.store.CreateKey(context.Background(), e.account.ID, e.agent.ID, "wk_inactive0000000000000000")
	if _, err := e.store.SetKeyActive(context.Background(), e.account.ID, inactive.Key, false); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		body   any
		status int
	}{
		{"missing key", `{}`, 400},
		{"null key", `{"key":null}`, 400},
		{"empty key", `{"key":""}`, 400},
		{"numeric key", `{"key":42}`, 400},
		{"object key", `{"key":{"a":1}}`, 400},
		{"unknown key", `{"key":"wk_doesnotexist"}`, 403},
		{"key without wk_", `{"key":"pk_live_123"}`, 403},
		{"inactive key", `{"key":"wk_inactive0000000000000000"}`, 403},
		{"malformed JSON", `{"key":`, 400},
		{"not an object", `["wk_x"]`, 400},
		{"empty body", ``, 400},
		{"trailing data", fmt.Sprintf(`{"key":%q} {}`, e.key), 400},
		{"unknown field", fmt.Sprintf(`{"key":%q,"color":"red"}`, e.key), 400},
		{"visitor_id not a string", fmt.Sprintf(`{"key":%q,"visitor_id":7}`, e.key), 400},
		{"visitor_id too long", fmt.Sprintf(`{"key":%q,"visitor_id":%q}`, e.key, strings.Repeat("v", 129)), 400},
		{"visitor_id with control chars", fmt.Sprintf(`{"key":%q,"visitor_id":"a\nb"}`, e.key), 400},
		{"page_url too long", fmt.Sprintf(`{"key":%q,"page_url":%q}`, e.key, strings.Repeat("u", 2049)), 400},
		{"body over 64 KiB", fmt.Sprintf(`{"key":%q,"page_url":%q}`, e.key, strings.Repeat("u", 70000)), 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, e.do("POST", "/api/widget/init", tt.body, nil), tt.status, "")
		})
	}
}

func TestChatAIReply(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, visitor := e.start()
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "what are your opening hours?", "visitor_id": visitor}, nil)
	if r.status != 200 || r.str("response") != "We are open from 9 to 17." {
		t.Fatalf("chat: %d %s", r.status, r.raw)
	}
	for _, k := range []string{"handoff", "wait", "user_reply_options"} {
		if _, ok := r.body[k]; ok {
			t.Errorf("AI body has %q: %s", k, r.raw)
		}
	}
	// When the agent does not know, it offers a human as a quick reply, in
	// the conversation's language (lang, any case) when the message's
	// script does not say another: a Cyrillic message is answered in
	// Russian, an English one in a Russian conversation in English.
	r = e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "вы продаёте подводные лодки", "lang": "EN"}, nil)
	opts, _ := r.body["user_reply_options"].([]any)
	if r.status != 200 || r.str("response") == "" || len(opts) == 0 || opts[0] != "Поговорить с человеком" {
		t.Fatalf("don't-know reply: %d %s", r.status, r.raw)
	}
	other, _ := e.start()
	r = e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": other, "text": "???", "lang": "RU"}, nil)
	if opts, _ := r.body["user_reply_options"].([]any); r.status != 200 || len(opts) == 0 || opts[0] != "Поговорить с человеком" {
		t.Fatalf("don't-know reply in a conversation in RU: %d %s", r.status, r.raw)
	}
	msgs := e.messages(conv)
	if len(msgs) != 4 || msgs[0].Role != domain.RoleVisitor || msgs[1].Role != domain.RoleAI || msgs[2].Text != "вы продаёте подводные лодки" {
		t.Fatalf("stored messages %+v", msgs)
	}
}

func TestChatValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, visitor := e.start()
	other, _ := e.newAgent(e.account.ID, "Other", `{}`)
	otherKey := ""
	if keys, _ := e.store.Keys(context.Background(), e.account.ID, other.ID); len(keys) == 1 {
		otherKey = keys[0].Key
	}
	body := func(kv ...any) map[string]any {
		m := map[string]any{"key": e.key, "conversation_id": conv, "text": "hello"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name   string
		body   any
		status int
	}{
		{"2000 Cyrillic letters", body("text", strings.Repeat("ж", 2000)), 200},
		{"2000 emoji", body("text", strings.Repeat("🙂", 2000)), 200},
		{"2001 characters", body("text", strings.Repeat("a", 2001)), 400},
		{"2001 Cyrillic letters", body("text", strings.Repeat("ж", 2001)), 400},
		{"empty text", body("text", ""), 400},
		{"blank text", body("text", " \n\t "), 400},
		{"missing text", body("text", nil), 400},
		{"text not a string", body("text", 5), 400},
		{"missing conversation_id", body("conversation_id", nil), 400},
		{"missing key", body("key", nil), 400},
		{"lang en", body("lang", "en"), 200},
		{"lang ro-RO", body("lang", "ro-RO"), 200},
		{"lang RU", body("lang", "RU"), 200},
		{"lang de", body("lang", "de"), 400},
		{"lang not a string", body("lang", 1), 400},
		{"unknown conversation", body("conversation_id", "cv_nope"), 403},
		{"conversation of another agent", body("key", otherKey), 403},
		{"another visitor", body("visitor_id", "someone-else"), 403},
		{"own visitor", body("visitor_id", visitor), 200},
		{"unknown key", body("key", "wk_nope"), 403},
		{"unknown field", body("html", "<b>"), 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(e.messages(conv))
			r := e.do("POST", "/api/widget/chat", tt.body, nil)
			if tt.status == 200 {
				if r.status != 200 || r.str("response") == "" {
					t.Fatalf("status %d: %s", r.status, r.raw)
				}
				return
			}
			wantError(t, r, tt.status, "")
			if after := len(e.messages(conv)); after != before {
				t.Fatalf("a refused message was stored (%d → %d messages)", before, after)
			}
		})
	}
	// 2,000 Cyrillic letters are stored whole, not truncated.
	msgs := e.messages(conv)
	if got := msgs[0].Text; got != strings.Repeat("ж", 2000) {
		t.Fatalf("stored text has %d runes, want 2000", len([]rune(got)))
	}
}

func TestChatHandoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	if r := e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil); r.status != 200 || r.body["changed"] != true {
		t.Fatalf("takeover: %d %s", r.status, r.raw)
	}
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "what are your opening hours?"}, nil)
	if r.status != 200 || r.str("handoff") != "human" || r.body["wait"] != true {
		t.Fatalf("handoff body: %d %s", r.status, r.raw)
	}
	if _, ok := r.body["response"]; ok {
		t.Fatalf("handoff body must not have a response key: %s", r.raw)
	}
	msgs := e.messages(conv)
	if len(msgs) != 1 || msgs[0].Role != domain.RoleVisitor {
		t.Fatalf("want only the visitor message stored while human-handled, got %+v", msgs)
	}
	// Handing back lets the AI answer again.
	e.api("POST", "/api/v1/conversations/"+conv+"/release", nil)
	r = e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "shipping cost"}, nil)
	if r.status != 200 || r.str("response") != "Shipping is free." {
		t.Fatalf("after release: %d %s", r.status, r.raw)
	}
}

// responderFunc adapts a function to agent.Responder.
type responderFunc func(ctx context.Context, req agent.Request) (agent.Reply, error)

func (f responderFunc) Respond(ctx context.Context, req agent.Request) (agent.Reply, error) {
	return f(ctx, req)
}

// instantFunc is a responderFunc that says it answers from memory
// (agent.Instant), as the knowledge base does: the chat service then stores
// the visitor's message together with the reply.
type instantFunc responderFunc

func (f instantFunc) Respond(ctx context.Context, req agent.Request) (agent.Reply, error) {
	return f(ctx, req)
}
func (instantFunc) Instant(domain.Agent) bool { return true }

// both runs a test with a responder whose reply is stored after the
// visitor's message (an LLM) and with one whose reply is stored with it.
func both(t *testing.T, f responderFunc, test func(t *testing.T, r agent.Responder)) {
	t.Run("stored first", func(t *testing.T) { test(t, f) })
	t.Run("instant", func(t *testing.T) { test(t, instantFunc(f)) })
}

func TestChatAIFailuresKeepTheMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		responder responderFunc
		status    int
	}{
		{"backend error", func(context.Context, agent.Request) (agent.Reply, error) {
			return agent.Reply{}, errors.New("connection refused: secret-backend.internal")
		}, 502},
		{"empty reply", func(context.Context, agent.Request) (agent.Reply, error) { return agent.Reply{}, nil }, 502},
		{"timeout", func(ctx context.Context, _ agent.Request) (agent.Reply, error) {
			<-ctx.Done()
			return agent.Reply{}, ctx.Err()
		}, 504},
		{"panic", func(context.Context, agent.Request) (agent.Reply, error) { panic("boom") }, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			both(t, tt.responder, func(t *testing.T, responder agent.Responder) {
				e := newEnv(t, envOptions{responder: responder, aiTimeout: 50 * time.Millisecond})
				conv, _ := e.start()
				r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "keep me"}, nil)
				wantError(t, r, tt.status, "")
				if strings.Contains(string(r.raw), "secret-backend") || strings.Contains(string(r.raw), "boom") {
					t.Fatalf("error leaks the cause: %s", r.raw)
				}
				msgs := e.messages(conv)
				if len(msgs) != 1 || msgs[0].Text != "keep me" || msgs[0].Role != domain.RoleVisitor {
					t.Fatalf("visitor message not kept: %+v", msgs)
				}
			})
		})
	}
}

// A visitor who leaves (closes the tab) while their chat is in flight is
// no fault of the server's: the request ends as nginx's 499 "client closed
// request", counted as such and not logged as an error, and no AI failure
// is counted. What was stored stays stored, and nothing is half-stored.
func TestChatVisitorLeaves(t *testing.T) {
	t.Parallel()
	thinking := make(chan struct{}, 1)
	tests := []struct {
		name      string
		responder agent.Responder // nil: the built-in knowledge base
		// leave ends the request's context: before the request, or once
		// the AI is thinking.
		before    bool
		kept      int // messages stored
		aiLatency string
	}{
		{"while the AI thinks", responderFunc(func(ctx context.Context, _ agent.Request) (agent.Reply, error) {
			thinking <- struct{}{}
			<-ctx.Done()
			return agent.Reply{}, ctx.Err()
		}), false, 1, `parley_ai_duration_seconds_count{outcome="canceled"} 1`},
		// The knowledge base answers from memory (its index warmed by a
		// chat elsewhere); the question and answer are stored in one write,
		// which a request already ended never joins: nothing is stored.
		{"before the exchange is stored", nil, true, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{responder: tt.responder})
			if tt.responder == nil {
				other, _ := e.start()
				if r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": other, "text": "opening hours"}, nil); r.status != 200 { // not small talk, which needs no index
					t.Fatalf("warming chat: %d %s", r.status, r.raw)
				}
			}
			conv, _ := e.start()
			ctx, leave := context.WithCancel(context.Background())
			defer leave()
			if tt.before {
				leave()
			}
			body, _ := json.Marshal(map[string]any{"key": e.key, "conversation_id": conv, "text": "What are your opening hours?"})
			req := httptest.NewRequest("POST", "/api/widget/chat", bytes.NewReader(body)).WithContext(ctx)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			done := make(chan struct{})
			go func() {
				defer close(done)
				e.handler.ServeHTTP(rec, req)
			}()
			if !tt.before {
				<-thinking
				leave()
			}
			<-done
			if rec.Code != 499 {
				t.Fatalf("status %d %s, want 499", rec.Code, rec.Body)
			}
			if msgs := e.messages(conv); len(msgs) != tt.kept {
				t.Fatalf("%d messages stored, want %d: %+v", len(msgs), tt.kept, msgs)
			}
			m := string(e.do("GET", "/metrics", nil, map[string]string{"remote": "127.0.0.1:9"}).raw) // local clients only
			for _, want := range []string{`parley_http_requests_total{route="POST /api/widget/chat",status="499"} 1`, tt.aiLatency} {
				if !strings.Contains(m, want) {
					t.Errorf("metrics lack %q", want)
				}
			}
			for _, unwanted := range []string{`route="POST /api/widget/chat",status="500"`, `parley_ai_errors_total{`} {
				if strings.Contains(m, unwanted) {
					t.Errorf("metrics have %q", unwanted)
				}
			}
		})
	}
}

// An operator who takes over while the AI is thinking wins: the late AI
// answer is dropped and the visitor gets the handoff body.
func TestTakeoverDuringAIAnswer(t *testing.T) {
	t.Parallel()
	thinking, proceed := make(chan struct{}), make(chan struct{})
	both(t, func(context.Context, agent.Request) (agent.Reply, error) {
		thinking <- struct{}{}
		<-proceed
		return agent.Reply{Text: "late AI answer"}, nil
	}, func(t *testing.T, responder agent.Responder) {
		takeoverDuringAIAnswer(t, responder, thinking, proceed)
	})
}

func takeoverDuringAIAnswer(t *testing.T, responder agent.Responder, thinking, proceed chan struct{}) {
	e := newEnv(t, envOptions{responder: responder})
	conv, _ := e.start()
	done := make(chan response)
	go func() {
		done <- e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}, nil)
	}()
	<-thinking
	e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil)
	proceed <- struct{}{}
	r := <-done
	if r.status != 200 || r.str("handoff") != "human" {
		t.Fatalf("want the handoff body, got %d %s", r.status, r.raw)
	}
	msgs := e.messages(conv)
	for _, m := range msgs {
		if m.Role == domain.RoleAI {
			t.Fatalf("the late AI answer was stored: %+v", m)
		}
	}
	if len(msgs) != 1 || msgs[0].Text != "hi" {
		t.Fatalf("the visitor's message was not kept for the operator: %+v", msgs)
	}
}

func TestPoll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	poll := func(query string) response {
		t.Helper()
		return e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv+query, nil, nil)
	}
	r := poll("")
	if r.status != 200 || r.body["wait"] != false || r.str("cursor") == "" {
		t.Fatalf("poll while AI-handled: %d %s", r.status, r.raw)
	}
	if _, ok := r.body["handoff"]; ok {
		t.Fatalf("handoff present while AI-handled: %s", r.raw)
	}
	if msgs, ok := r.body["messages"].([]any); !ok || len(msgs) != 0 {
		t.Fatalf("messages = %v, want []", r.body["messages"])
	}
	start := r.str("cursor")

	e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hello"}, nil)
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "Hi, I am Ana <b>", "operator_name": "Ana"})
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "How can I help?"})

	r = poll("&after=" + start)
	msgs, _ := r.body["messages"].([]any)
	if r.status != 200 || len(msgs) != 2 || r.str("handoff") != "human" || r.body["wait"] != true {
		t.Fatalf("poll after operator messages: %d %s", r.status, r.raw)
	}
	first := msgs[0].(map[string]any)
	if first["text"] != "Hi, I am Ana <b>" || first["operator_name"] != "Ana" || first["id"] == "" || first["created_at"] == "" {
		t.Fatalf("first operator message = %v", first)
	}
	if msgs[1].(map[string]any)["operator_name"] != "Ana" { // defaults to the account's name
		t.Fatalf("second operator message = %v", msgs[1])
	}
	// Only operator messages, and nothing twice.
	cursor := r.str("cursor")
	if r := poll("&after=" + cursor); len(r.body["messages"].([]any)) != 0 || r.str("cursor") != cursor {
		t.Fatalf("poll at the end: %s", r.raw)
	}
	// Without a cursor: all operator messages again (the cursor is stable).
	if r := poll(""); len(r.body["messages"].([]any)) != 2 || r.str("cursor") != cursor {
		t.Fatalf("poll without cursor: %s", r.raw)
	}
	// Handing back ends the wait.
	e.api("POST", "/api/v1/conversations/"+conv+"/release", nil)
	r = poll("&after=" + cursor)
	if _, ok := r.body["handoff"]; ok || r.body["wait"] != false {
		t.Fatalf("poll after release: %s", r.raw)
	}
}

func TestPollErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	base := "/api/widget/poll?key=" + e.key + "&conversation_id=" + conv
	tests := []struct {
		name, path string
		status     int
	}{
		{"bad cursor", base + "&after=zzz", 400},
		{"negative cursor", base + "&after=c-1", 400},
		{"cursor not base36", base + "&after=c!!", 400},
		{"wait too long", base + "&wait=31", 400},
		{"wait negative", base + "&wait=-1", 400},
		{"wait not a number", base + "&wait=soon", 400},
		{"missing key", "/api/widget/poll?conversation_id=" + conv, 400},
		{"missing conversation", "/api/widget/poll?key=" + e.key, 400},
		{"unknown conversation", "/api/widget/poll?key=" + e.key + "&conversation_id=cv_x", 403},
		{"unknown key", "/api/widget/poll?key=wk_x&conversation_id=" + conv, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, e.do("GET", tt.path, nil, nil), tt.status, "") })
	}
}

func TestLongPollWakesOnOperatorMessageAndModeChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	base := "/api/widget/poll?key=" + e.key + "&conversation_id=" + conv

	// A long poll while AI-handled returns when an operator takes over.
	done := make(chan response)
	go func() { done <- e.do("GET", base+"&wait=30", nil, nil) }()
	waitForWaiters(t, e)
	e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil)
	r := <-done
	if r.status != 200 || r.body["wait"] != true || r.str("handoff") != "human" {
		t.Fatalf("long poll after takeover: %d %s", r.status, r.raw)
	}

	// Then it returns with the operator's message.
	go func() { done <- e.do("GET", base+"&wait=30&after="+r.str("cursor"), nil, nil) }()
	waitForWaiters(t, e)
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "I'm here"})
	r = <-done
	msgs, _ := r.body["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["text"] != "I'm here" {
		t.Fatalf("long poll after an operator message: %s", r.raw)
	}

	// And with the hand-back.
	go func() { done <- e.do("GET", base+"&wait=30&after="+r.str("cursor"), nil, nil) }()
	waitForWaiters(t, e)
	e.api("POST", "/api/v1/conversations/"+conv+"/release", nil)
	r = <-done
	if r.body["wait"] != false {
		t.Fatalf("long poll after release: %s", r.raw)
	}

	// Shutting down releases waiting polls at once.
	go func() { done <- e.do("GET", base+"&wait=30&after="+r.str("cursor"), nil, nil) }()
	waitForWaiters(t, e)
	e.chat.Stop()
	if r := <-done; r.status != 200 {
		t.Fatalf("long poll at shutdown: %d %s", r.status, r.raw)
	}
}

// waitForWaiters blocks until a long poll is waiting, reading the metric of
// waiting polls rather than sleeping.
func waitForWaiters(t *testing.T, e *env) {
	t.Helper()
	for range 2000 {
		if e.chat.Waiting() > 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no long poll started waiting")
}

func TestCORS(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 1})
	for _, path := range []string{"/api/widget/init", "/api/widget/chat", "/api/widget/poll"} {
		r := e.do("OPTIONS", path, nil, map[string]string{
			"Origin": "https://any.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type",
		})
		h := r.header
		if r.status != 204 || h.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
			!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "content-type") {
			t.Fatalf("preflight %s: %d %v", path, r.status, h)
		}
	}
	// Preflights did not use the (one-request) rate limit; success and
	// error responses both carry the header.
	ok := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, map[string]string{"Origin": "https://any.example"})
	limited := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, map[string]string{"Origin": "https://any.example"})
	if ok.status != 200 || limited.status != 429 {
		t.Fatalf("statuses %d, %d; want 200, 429", ok.status, limited.status)
	}
	for _, r := range []response{ok, limited, e.do("GET", "/api/widget/nope", nil, map[string]string{"remote": "192.0.2.9:1"})} {
		if r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%d response lacks CORS: %v", r.status, r.header)
		}
		if r.header.Get("Set-Cookie") != "" {
			t.Fatal("the widget API set a cookie")
		}
	}
	if r := e.do("GET", "/widget.js", nil, nil); r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatal("widget.js lacks CORS")
	}
	// The management API is not open to other origins.
	r := e.api("GET", "/api/v1/agents", nil)
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("the management API must not allow other origins")
	}
	if r := e.do("OPTIONS", "/api/v1/agents", nil, map[string]string{"Origin": "https://evil.example"}); r.status == 204 || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("management preflight answered %d %v", r.status, r.header)
	}
}

func TestUnknownRoutesAreJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	wantError(t, e.do("GET", "/api/widget/nope", nil, nil), 404, "")
	wantError(t, e.do("GET", "/nope", nil, nil), 404, "")
	r := e.do("GET", "/api/widget/chat", nil, nil)
	wantError(t, r, 405, "")
	if r.header.Get("Allow") == "" {
		t.Fatal("405 without an Allow header")
	}
	wantError(t, e.do("DELETE", "/api/v1/usage", nil, nil), 405, "")
}

func TestConfigIsAnObjectEvenWhenEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	_, key := e.newAgent(e.account.ID, "Bare", `{}`)
	r := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil)
	var body struct {
		Config json.RawMessage `json:"config"`
	}
	json.Unmarshal(r.raw, &body)
	if string(body.Config) != "{}" {
		t.Fatalf("config = %s, want {}", body.Config)
	}
}

// A key that was just in use stops working the moment it is deactivated,
// on every widget endpoint, and works again when reactivated: the store's
// key lookups may be cached, never stale.
func TestDeactivatedKeyIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	poll := "/api/widget/poll?key=" + e.key + "&conversation_id=" + conv
	chat := map[string]any{"key": e.key, "conversation_id": conv, "text": "hello"}
	for range 2 { // warm any cache
		if r := e.do("GET", poll, nil, nil); r.status != 200 {
			t.Fatalf("poll: %d %s", r.status, r.raw)
		}
		if r := e.do("POST", "/api/widget/chat", chat, nil); r.status != 200 {
			t.Fatalf("chat: %d %s", r.status, r.raw)
		}
	}
	if r := e.api("PATCH", "/api/v1/keys/"+e.key, map[string]any{"active": false}); r.status != 200 {
		t.Fatalf("deactivate: %d %s", r.status, r.raw)
	}
	wantError(t, e.do("GET", poll, nil, nil), 403, "")
	wantError(t, e.do("GET", poll+"&wait=1", nil, nil), 403, "")
	wantError(t, e.do("POST", "/api/widget/chat", chat, nil), 403, "")
	wantError(t, e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil), 403, "")
	if r := e.api("PATCH", "/api/v1/keys/"+e.key, map[string]any{"active": true}); r.status != 200 {
		t.Fatalf("reactivate: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", poll, nil, nil); r.status != 200 {
		t.Fatalf("poll after reactivation: %d %s", r.status, r.raw)
	}
}

// Another agent's key cannot read a conversation's operator messages, with
// or without a wait.
func TestPollWithAnotherAgentsKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "secret", "operator_name": "Ana"})
	_, other := e.newAgent(e.account.ID, "Other", `{}`)
	for _, wait := range []string{"", "&wait=1"} {
		r := e.do("GET", "/api/widget/poll?key="+other+"&conversation_id="+conv+wait, nil, nil)
		wantError(t, r, 403, "")
		if strings.Contains(string(r.raw), "secret") {
			t.Fatalf("another agent's key read the conversation: %s", r.raw)
		}
	}
}
