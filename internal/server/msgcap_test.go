package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/agent/llm"
	"parley/internal/domain"
	"parley/internal/store"
)

const fullBody = `{"error":"this conversation has reached its message limit; start a new one"}`

// wantFull checks the cap's 403: exactly the body, with the
// widget API's CORS header.
func wantFull(t *testing.T, r response) {
	t.Helper()
	if r.status != 403 || string(bytes.TrimSpace(r.raw)) != fullBody {
		t.Fatalf("got %d %s; want 403 %s", r.status, r.raw, fullBody)
	}
}

// Past the cap chat answers the 403 and stores nothing; the visitor goes on
// in a new conversation. The AI's reply to the message that reached the
// cap is stored, an operator can still answer (until twice the cap), and a
// human-handled conversation is capped for the visitor too.
func TestChatPastTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{maxMsgs: 3})
	conv, _ := e.start()
	for range 2 { // 2 messages, then 4: the second answer passes the cap by one
		e.chatText(conv, "What are your opening hours?", "en")
	}
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "And on Sunday?"}, nil)
	wantFull(t, r)
	if r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("the 403 lacks the widget API's CORS header")
	}
	if n := len(e.messages(conv)); n != 4 {
		t.Errorf("%d messages after the refused chat, want 4", n)
	}

	// An operator answers the full conversation, until it holds 6.
	for i := range 3 {
		r := e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": fmt.Sprintf("Hello %d", i)})
		if i < 2 && r.status != 201 {
			t.Fatalf("operator reply %d: %d %s", i, r.status, r.raw)
		}
		if i == 2 {
			wantFull(t, r)
		}
	}
	// Human-handled now: still full for the visitor.
	wantFull(t, e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "Thanks!"}, nil))

	next, _ := e.start()
	if r := e.chatText(next, "And on Sunday?", "en"); r.str("response") == "" {
		t.Errorf("a new conversation: %s", r.raw)
	}
}

// With an LLM the visitor's message is stored before the AI is asked: a
// chat past the cap is refused before any AI call.
func TestChatPastTheCapLLM(t *testing.T) {
	t.Parallel()
	fake := newFakeLLM(t)
	fake.reply(`{"reply": "We are open from 9 to 17."}`)
	e := newEnv(t, envOptions{llm: &llm.Config{BaseURL: fake.URL + "/v1", Model: "m", MaxRetries: -1}, aiTimeout: 5 * time.Second, maxMsgs: 3})
	conv, _ := e.start()
	for range 2 {
		if r := e.chatText(conv, "opening hours?", "en"); r.str("response") != "We are open from 9 to 17." {
			t.Fatalf("chat: %s", r.raw)
		}
	}
	fake.mu.Lock()
	calls := len(fake.requests)
	fake.mu.Unlock()
	wantFull(t, e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "and Sunday?"}, nil))
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.requests) != calls {
		t.Error("the AI was asked about a message past the cap")
	}
	if n := len(e.messages(conv)); n != 4 {
		t.Errorf("%d messages, want 4", n)
	}
}

// Parallel chats into one conversation store what the cap allows and no
// more, through the whole stack; every other one is the 403.
func TestChatCapUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{maxMsgs: 10})
	conv, _ := e.start()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 40 {
		wg.Go(func() {
			r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "What are your opening hours?"}, nil)
			if r.status == 403 && string(bytes.TrimSpace(r.raw)) != fullBody {
				t.Errorf("403 body %s", r.raw)
			}
			mu.Lock()
			codes[r.status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[200] != 5 || codes[403] != 35 || len(e.messages(conv)) != 10 {
		t.Errorf("statuses %v, %d messages; want 5 answered, 35 refused, 10 messages", codes, len(e.messages(conv)))
	}
}

// fill stores n messages in a conversation directly, with no cap: a
// conversation from before the cap, or from a test that needs many.
func (e *env) fill(convID string, n, size int) []domain.Message {
	e.t.Helper()
	var wg sync.WaitGroup
	const writers = 8
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				text := fmt.Sprintf("%05d ", i) + strings.Repeat("x", max(0, size-6))
				if _, _, err := e.store.AddMessage(context.Background(), store.NewMessage{ConversationID: convID, Role: domain.RoleVisitor, Text: text}); err != nil {
					e.t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return e.messages(convID)
}

type transcriptJSON struct {
	ID       string
	Messages []struct{ ID, Role, Text string }
}

func (e *env) transcript(path string) (transcriptJSON, response) {
	e.t.Helper()
	r := e.api("GET", path, nil)
	var out transcriptJSON
	if r.status == 200 {
		if err := json.Unmarshal(r.raw, &out); err != nil {
			e.t.Fatal(err)
		}
	}
	return out, r
}

// GET /api/v1/conversations/{id} pages the transcript: the newest limit
// messages oldest first, next_before while older ones exist.
func TestConversationPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	all := e.fill(conv, 250, 10)
	ids := func(from, to int) []string {
		var out []string
		for _, m := range all[from:to] {
			out = append(out, fmt.Sprint(m.Seq))
		}
		return out
	}
	got := func(tr transcriptJSON) []string {
		var out []string
		for _, m := range tr.Messages {
			out = append(out, m.ID)
		}
		return out
	}
	base := "/api/v1/conversations/" + conv
	for _, tt := range []struct {
		query    string
		from, to int
		next     string // "" for none
	}{
		{"", 150, 250, fmt.Sprint(all[150].Seq)},
		{"?before=" + fmt.Sprint(all[150].Seq), 50, 150, fmt.Sprint(all[50].Seq)},
		{"?before=" + fmt.Sprint(all[50].Seq), 0, 50, ""},
		{"?limit=1", 249, 250, fmt.Sprint(all[249].Seq)},
		{"?limit=500", 0, 250, ""},
		{"?limit=3&before=" + fmt.Sprint(all[3].Seq), 0, 3, ""},
		{"?limit=2&before=" + fmt.Sprint(all[3].Seq), 1, 3, fmt.Sprint(all[1].Seq)},
		{"?before=" + fmt.Sprint(all[0].Seq), 0, 0, ""},
	} {
		tr, r := e.transcript(base + tt.query)
		if r.status != 200 || tr.ID != conv || strings.Join(got(tr), ",") != strings.Join(ids(tt.from, tt.to), ",") || r.str("next_before") != tt.next {
			t.Errorf("%s: %d, %d messages, next_before %q; want messages %d to %d, next_before %q", tt.query, r.status, len(tr.Messages), r.str("next_before"), tt.from, tt.to, tt.next)
		}
		if _, has := r.body["next_before"]; tt.next == "" && has {
			t.Errorf("%s: next_before present on the last page", tt.query)
		}
		if r.body["messages"] == nil {
			t.Errorf("%s: messages is null, want a list", tt.query)
		}
	}

	other, _ := e.start()
	foreign := e.fill(other, 1, 10)[0]
	for _, q := range []string{"?limit=0", "?limit=501", "?limit=ten", "?limit=-1"} {
		r := e.api("GET", base+q, nil)
		if wantError(t, r, 400, ""); r.str("error") != "limit must be a whole number from 1 to 500" {
			t.Errorf("%s: %s", q, r.raw)
		}
	}
	for _, q := range []string{"?before=x", "?before=0", "?before=-4", fmt.Sprintf("?before=%d", foreign.Seq), "?before=99999999"} {
		r := e.api("GET", base+q, nil)
		if wantError(t, r, 400, ""); r.str("error") != "before is not a message of this conversation" {
			t.Errorf("%s: %s", q, r.raw)
		}
	}
	// Another account's conversation stays a 404, cursor or not.
	_, token := e.newAccount("other@example.com", domain.Limits{MonthlyConversations: 10})
	r := e.do("GET", base+"?before="+fmt.Sprint(all[10].Seq), nil, map[string]string{"Authorization": "Bearer " + token})
	wantError(t, r, 404, "")
}

// A transcript of 1,200 messages of 2,000 characters answers 100 of them:
// about 200 KB, not 2.4 MB.
func TestConversationResponseIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, _ := e.start()
	e.fill(conv, 1_200, 2_000)
	tr, r := e.transcript("/api/v1/conversations/" + conv)
	if max := store.DefaultMessagePage*2_150 + 2_000; r.status != 200 || len(tr.Messages) != store.DefaultMessagePage || len(r.raw) > max {
		t.Errorf("status %d, %d messages in %d bytes; want 200, %d in at most %d", r.status, len(tr.Messages), len(r.raw), store.DefaultMessagePage, max)
	}
}
