package server

import (
	"context"
	"testing"

	"parley/internal/domain"
	"parley/internal/handoff"
)

func (e *env) chatText(conv, text, lang string) response {
	e.t.Helper()
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": text, "lang": lang}, nil)
	if r.status != 200 {
		e.t.Fatalf("chat %q: %d %s", text, r.status, r.raw)
	}
	return r
}

func (e *env) waitingIDs() []string {
	e.t.Helper()
	r := e.api("GET", "/api/v1/conversations?waiting=true", nil)
	var ids []string
	for _, c := range r.body["conversations"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	return ids
}

func TestVisitorAsksForAHuman(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, lang string }{
		{"Talk to a human", "en"},
		{"Vreau să vorbesc cu un om", "ro"},
		{"Позовите оператора", "ru"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			conv, _ := e.start()
			r := e.chatText(conv, tt.text, tt.lang)
			if r.str("response") != handoff.SettingsOf(domain.AgentConfig{}).Message(tt.lang) {
				t.Fatalf("reply = %s, want the handoff message in %s", r.raw, tt.lang)
			}
			if _, ok := r.body["handoff"]; ok {
				t.Fatal("asking for a human must not switch to the human-handled body before an operator takes over")
			}
			if ids := e.waitingIDs(); len(ids) != 1 || ids[0] != conv {
				t.Fatalf("waiting queue = %v, want [%s]", ids, conv)
			}
			d := e.api("GET", "/api/v1/conversations/"+conv, nil)
			if d.body["waiting"] != true || d.str("mode") != "ai" || d.str("waiting_since") == "" || d.str("waiting_since") != d.str("last_message_at") {
				t.Fatalf("conversation (waiting since the handoff message): %s", d.raw)
			}
			// Still AI-handled: the visitor's poll does not wait yet, and the
			// agent keeps answering.
			if p := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, nil); p.body["wait"] != false {
				t.Fatalf("poll: %s", p.raw)
			}
			// The takeover takes it out of the queue.
			e.api("POST", "/api/v1/conversations/"+conv+"/takeover", nil)
			if ids := e.waitingIDs(); len(ids) != 0 {
				t.Fatalf("waiting after takeover: %v", ids)
			}
			if d := e.api("GET", "/api/v1/conversations/"+conv, nil); d.body["waiting_since"] != nil {
				t.Fatalf("waiting since after takeover: %s", d.raw)
			}
		})
	}
}

func TestTwoMissesAskForAHuman(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	first := e.chatText(conv, "do you repair submarines", "en")
	if opts, _ := first.body["user_reply_options"].([]any); len(opts) == 0 || opts[0] != "Talk to a human" {
		t.Fatalf("first miss: %s", first.raw)
	}
	if len(e.waitingIDs()) != 0 {
		t.Fatal("one miss already queued the conversation")
	}
	// An answer in between resets the count.
	e.chatText(conv, "what are your opening hours", "en")
	e.chatText(conv, "do you sell rockets", "en")
	if len(e.waitingIDs()) != 0 {
		t.Fatal("misses that were not in a row queued the conversation")
	}
	second := e.chatText(conv, "can you fix my bicycle", "en")
	if second.str("response") != handoff.SettingsOf(domain.AgentConfig{}).Message("en") {
		t.Fatalf("second miss in a row: %s", second.raw)
	}
	if ids := e.waitingIDs(); len(ids) != 1 {
		t.Fatalf("waiting queue = %v", ids)
	}
}

func TestHandoffDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	name := "Quiet"
	ag, key := e.newAgent(e.account.ID, name, `{"handoff":{"enabled":false}}`)
	_ = ag
	r := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil)
	conv := r.str("conversation_id")
	chat := func(text string) response {
		return e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": conv, "text": text}, nil)
	}
	for _, text := range []string{"talk to a human", "do you sell rockets", "do you repair submarines"} {
		r := chat(text)
		if r.status != 200 || r.str("response") == handoff.SettingsOf(domain.AgentConfig{}).Message("en") {
			t.Fatalf("%q with handoff off: %s", text, r.raw)
		}
		if opts, _ := r.body["user_reply_options"].([]any); len(opts) > 0 {
			t.Fatalf("%q: offered %v with handoff off", text, opts)
		}
	}
	if ids := e.waitingIDs(); len(ids) != 0 {
		t.Fatalf("queued with handoff off: %v", ids)
	}
}

func TestCustomHandoffMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	_, key := e.newAgent(e.account.ID, "Custom", `{"handoff":{"message":{"ro":"Vine Ana imediat."}}}`)
	conv := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil).str("conversation_id")
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": conv, "text": "operator", "lang": "ro"}, nil)
	if r.str("response") != "Vine Ana imediat." {
		t.Fatalf("custom message: %s", r.raw)
	}
	if c, _ := e.store.Conversation(context.Background(), conv); !c.Waiting {
		t.Fatal("not waiting")
	}
}
