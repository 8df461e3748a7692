package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
)

// Init starts an AI-handled conversation at the clock's time, for a new or
// a returning visitor, and shows the widget only the public config.
func TestInitStartsAConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{config: `{"color":"#123456","instructions":"secret prompt","llm":{"api_key":"sk-x"}}`})
	res, err := f.svc.Init(f.ctx, InitInput{Key: f.key, PageURL: "https://example.com/pricing"})
	if err != nil {
		t.Fatal(err)
	}
	c := f.conv(res.ConversationID)
	if c.Mode != domain.ModeAI || c.Waiting || c.VisitorID != res.VisitorID || res.VisitorID == "" ||
		c.PageURL != "https://example.com/pricing" || !c.CreatedAt.Equal(start) || c.AgentID != f.agent.ID {
		t.Fatalf("stored conversation %+v for result %+v", c, res)
	}
	var public map[string]any
	if err := json.Unmarshal(res.Config, &public); err != nil || len(public) != 1 || public["color"] != "#123456" {
		t.Fatalf("public config %s (%v), want only the colour", res.Config, err)
	}
	if res.ChatbotName != "Helper" {
		t.Fatalf("chatbot name %q", res.ChatbotName)
	}
	if got := f.notes.take(); !slices.Equal(got, []string{AccountTopic(f.account.ID)}) {
		t.Fatalf("published %q, want the account's inbox", got)
	}

	again, err := f.svc.Init(f.ctx, InitInput{Key: f.key, VisitorID: res.VisitorID})
	if err != nil || again.VisitorID != res.VisitorID || again.ConversationID == res.ConversationID {
		t.Fatalf("returning visitor: %+v, %v; want a new conversation for the same visitor", again, err)
	}
}

func TestInitRefusesBadKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	_, inactive := f.newAgent(f.account.ID, "{}")
	if _, err := f.store.SetKeyActive(f.ctx, f.account.ID, inactive, false); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   InitInput
		want func(error) bool
	}{
		{"no key", InitInput{}, isInvalid},
		{"not a widget key", InitInput{Key: "pk_live_123"}, is(domain.ErrKeyInvalid)},
		{"unknown key", InitInput{Key: "wk_0123456789abcdef0123456789abcdef"}, is(domain.ErrKeyInvalid)},
		{"inactive key", InitInput{Key: inactive}, is(domain.ErrKeyInvalid)},
		{"control character in visitor id", InitInput{Key: f.key, VisitorID: "v\x00"}, isInvalid},
		{"page URL too long", InitInput{Key: f.key, PageURL: "https://example.com/" + strings.Repeat("a", MaxPageURLChars)}, isInvalid},
	}
	for _, tt := range tests {
		if _, err := f.svc.Init(f.ctx, tt.in); !tt.want(err) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if u, err := f.store.Usage(f.ctx, f.account.ID, "2025-03"); err != nil || u.Conversations != 0 {
		t.Fatalf("refused inits used the allowance: %+v, %v", u, err)
	}
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

// While the AI handles the conversation, the visitor's message and the
// AI's reply are both stored, at the clock's time, and the reply returned.
func TestChatAnswersWhileAIHandles(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant})
		conv := f.init()
		f.notes.take()
		f.clock.Set(start.Add(time.Minute))
		res, err := f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: "When do you open?", Lang: "ro"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Handoff || res.Response != "We open at 9." || !slices.Equal(res.Options, []string{"Shipping?"}) {
			t.Fatalf("result %+v", res)
		}
		f.wantTranscript(conv, "visitor: When do you open?", "ai: We open at 9.")
		if c := f.conv(conv); !c.LastMessageAt.Equal(start.Add(time.Minute)) || c.LastMessage != "We open at 9." {
			t.Fatalf("conversation after the chat: %+v", c)
		}
		if req := f.ai.calls[0]; req.Text != "When do you open?" || req.Lang != "ro" || req.ConversationID != conv || req.Agent.ID != f.agent.ID {
			t.Fatalf("the AI was asked %+v", req)
		}
		if got := f.notes.take(); !slices.Contains(got, conv) || !slices.Contains(got, AccountTopic(f.account.ID)) {
			t.Fatalf("published %q, want the conversation and the inbox", got)
		}
	})
}

// A message for a conversation that is not the key's agent's, or a visitor
// id that is not the conversation's, is "conversation is invalid".
func TestChatConversationMustMatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	_, otherKey := f.newAgent(f.account.ID, "{}")
	tests := []struct {
		name string
		in   ChatInput
	}{
		{"unknown conversation", ChatInput{Key: f.key, ConversationID: "cnv_unknown", Text: "hi"}},
		{"another agent's key", ChatInput{Key: otherKey, ConversationID: conv, Text: "hi"}},
		{"another visitor", ChatInput{Key: f.key, ConversationID: conv, Text: "hi", VisitorID: "v_someone_else_entirely"}},
	}
	for _, tt := range tests {
		if _, err := f.svc.Chat(f.ctx, tt.in); !errors.Is(err, domain.ErrConversationInvalid) {
			t.Errorf("%s: %v, want ErrConversationInvalid", tt.name, err)
		}
	}
	for _, in := range []ChatInput{
		{Key: f.key, Text: "hi"},                                   // no conversation
		{Key: f.key, ConversationID: conv, Text: " "},              // blank text
		{Key: f.key, ConversationID: conv, Text: "hi", Lang: "de"}, // unsupported language
	} {
		if _, err := f.svc.Chat(f.ctx, in); !isInvalid(err) {
			t.Errorf("%+v: %v, want a 400", in, err)
		}
	}
	f.wantTranscript(conv)
	if f.ai.Calls() != 0 {
		t.Fatal("the AI was asked about a refused message")
	}
}

// An AI that fails, times out or answers nothing costs the visitor no
// message: it is stored, and the error is one of the spec's two.
func TestChatKeepsTheMessageWhenTheAIFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   agent.Reply
		err     error
		hold    bool
		wantErr error
	}{
		{"backend error", agent.Reply{}, errors.New("connection refused"), false, domain.ErrAIUnavailable},
		{"empty reply", agent.Reply{Text: ""}, nil, false, domain.ErrAIUnavailable},
		{"timeout", agent.Reply{Text: "too late"}, nil, true, domain.ErrAITimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			both(t, func(t *testing.T, instant bool) {
				t.Parallel()
				f := newFixture(t, fixtureOptions{instant: instant, replies: []agent.Reply{tt.reply}, aiTimeout: 50 * time.Millisecond})
				f.ai.err = tt.err
				if tt.hold {
					f.ai.hold = make(chan struct{}) // never released: the AI timeout ends it
				}
				conv := f.init()
				if _, err := f.chat(conv, "Hello?"); !errors.Is(err, tt.wantErr) {
					t.Fatalf("Chat: %v, want %v", err, tt.wantErr)
				}
				f.wantTranscript(conv, "visitor: Hello?")
				if !slices.EqualFunc(f.observer.aiErrs, []error{tt.wantErr}, errors.Is) {
					t.Fatalf("observer told %v", f.observer.aiErrs)
				}
			})
		})
	}
}

// A visitor who leaves while the AI thinks is no failure of the AI's: the
// error is the visitor's context's, and the message is kept.
func TestChatVisitorLeaves(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.ai.hold, f.ai.entered = make(chan struct{}), make(chan struct{}, 1)
	conv := f.init()
	ctx, cancel := context.WithCancel(f.ctx)
	go func() { <-f.ai.entered; cancel() }()
	if _, err := f.svc.Chat(ctx, ChatInput{Key: f.key, ConversationID: conv, Text: "Anyone?"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Chat: %v, want context.Canceled", err)
	}
	f.wantTranscript(conv, "visitor: Anyone?")
}

// An operator who takes over while the AI is thinking silences the AI:
// its reply is dropped, the visitor is told a human handles it, and the
// visitor's message is kept for the operator.
func TestTakeOverWhileTheAIThinks(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant})
		f.ai.hold, f.ai.entered = make(chan struct{}), make(chan struct{}, 1)
		conv := f.init()
		done := make(chan ChatResult)
		go func() {
			res, err := f.chat(conv, "Can I return it?")
			if err != nil {
				t.Errorf("Chat: %v", err)
			}
			done <- res
		}()
		<-f.ai.entered
		if changed, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil || !changed {
			t.Fatalf("TakeOver: %v, %v", changed, err)
		}
		close(f.ai.hold)
		if res := <-done; !res.Handoff || res.Response != "" {
			t.Fatalf("result %+v, want the handoff", res)
		}
		f.wantTranscript(conv, "visitor: Can I return it?")
	})
}
