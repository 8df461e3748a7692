package chat

import (
	"slices"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
)

// An agent whose handoff message is its own, so the tests need not know
// the default texts.
const handoffConfig = `{"handoff":{"message":{"en":"A person is coming.","ro":"Vine un om."}}}`

// A visitor who asks for a person gets the handoff message in their
// language without the AI being asked, and the conversation waits for a
// human (still AI-handled until an operator takes over).
func TestAskingForAHumanWaits(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, lang, want string }{
		{"Talk to a human", "en", "A person is coming."},
		{"I want a real person please", "", "A person is coming."},
		{"Vorbește cu un om", "ro", "Vine un om."},
		{"Позовите оператора", "ru", "Я позвал сотрудника нашей команды. Он скоро ответит здесь."},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			both(t, func(t *testing.T, instant bool) {
				t.Parallel()
				f := newFixture(t, fixtureOptions{instant: instant, config: handoffConfig})
				conv := f.init()
				res, err := f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: tt.text, Lang: tt.lang})
				if err != nil || res.Handoff || res.Response != tt.want || res.Options != nil {
					t.Fatalf("Chat: %+v, %v; want the handoff message %q", res, err, tt.want)
				}
				if f.ai.Calls() != 0 {
					t.Fatal("the AI was asked")
				}
				if c := f.conv(conv); !c.Waiting || c.Mode != domain.ModeAI {
					t.Fatalf("conversation %+v, want AI-handled and waiting", c)
				}
				f.wantTranscript(conv, "visitor: "+tt.text, "ai: "+tt.want)
			})
		})
	}
}

// With handoff off, asking for a person is a question for the AI, the AI's
// "Talk to a human" suggestion is not offered, and nothing waits.
func TestHandoffOff(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant, config: `{"handoff":{"enabled":false}}`, replies: []agent.Reply{
			{Text: "I can help with that.", Options: []string{"Talk to a human"}},
			{Text: "Sorry, I don't know.", Options: []string{"Opening hours", "Talk to a human"}, Unanswered: true},
		}})
		conv := f.init()
		res, err := f.chat(conv, "Talk to a human")
		if err != nil || res.Response != "I can help with that." || res.Options != nil {
			t.Fatalf("first: %+v, %v; want the AI's answer without options", res, err)
		}
		for range 3 { // misses ask for no one either
			res, err = f.chat(conv, "Do you sell boats?")
			if err != nil || res.Response != "Sorry, I don't know." || !slices.Equal(res.Options, []string{"Opening hours"}) {
				t.Fatalf("miss: %+v, %v", res, err)
			}
		}
		if c := f.conv(conv); c.Waiting || c.Misses != 3 {
			t.Fatalf("conversation %+v, want 3 misses and no wait", c)
		}
	})
}

// Two unanswered replies in a row ask for a human on the visitor's behalf:
// the second becomes the handoff message. An answer in between starts the
// count again.
func TestTwoMissesInARowHandOff(t *testing.T) {
	t.Parallel()
	miss := agent.Reply{Text: "Sorry, I don't know.", Options: []string{"Talk to a human"}, Unanswered: true}
	hit := agent.Reply{Text: "We open at 9."}
	tests := []struct {
		name       string
		replies    []agent.Reply
		wantLast   string
		wantMisses int
		wantWait   bool
	}{
		{"one miss", []agent.Reply{miss}, "Sorry, I don't know.", 1, false},
		{"two misses", []agent.Reply{miss, miss}, "A person is coming.", 2, true},
		{"miss, answer, miss", []agent.Reply{miss, hit, miss}, "Sorry, I don't know.", 1, false},
		{"miss, answer, miss, miss", []agent.Reply{miss, hit, miss, miss}, "A person is coming.", 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			both(t, func(t *testing.T, instant bool) {
				t.Parallel()
				f := newFixture(t, fixtureOptions{instant: instant, config: handoffConfig, replies: slices.Clone(tt.replies)})
				conv := f.init()
				var res ChatResult
				for i := range tt.replies {
					var err error
					if res, err = f.chat(conv, "question"); err != nil {
						t.Fatalf("chat %d: %v", i+1, err)
					}
				}
				if res.Response != tt.wantLast {
					t.Fatalf("last reply %+v, want %q", res, tt.wantLast)
				}
				if tt.wantWait && res.Options != nil {
					t.Fatalf("the handoff message offers %v", res.Options)
				}
				if c := f.conv(conv); c.Misses != tt.wantMisses || c.Waiting != tt.wantWait || c.Mode != domain.ModeAI {
					t.Fatalf("conversation misses %d waiting %v mode %s; want %d, %v, ai", c.Misses, c.Waiting, c.Mode, tt.wantMisses, tt.wantWait)
				}
			})
		})
	}
}

// Once an operator handles the conversation the AI is silent: the
// visitor's messages are stored and answered with the handoff body. The
// takeover ends the wait; a release hands it back to the AI, which answers
// again.
func TestHumanHandledConversation(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant, config: handoffConfig})
		conv := f.init()
		if _, err := f.chat(conv, "Talk to a human"); err != nil {
			t.Fatal(err)
		}
		if changed, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil || !changed {
			t.Fatalf("TakeOver: %v, %v", changed, err)
		}
		if c := f.conv(conv); c.Mode != domain.ModeHuman || c.Waiting {
			t.Fatalf("after takeover: %+v, want human-handled, no longer waiting", c)
		}
		res, err := f.chat(conv, "Hello?")
		if err != nil || !res.Handoff || res.Response != "" {
			t.Fatalf("Chat while human-handled: %+v, %v", res, err)
		}
		if f.ai.Calls() != 0 {
			t.Fatal("the AI was asked while a human handles the conversation")
		}
		if changed, err := f.svc.Release(f.ctx, f.account.ID, conv); err != nil || !changed {
			t.Fatalf("Release: %v, %v", changed, err)
		}
		if res, err := f.chat(conv, "When do you open?"); err != nil || res.Response != "We open at 9." {
			t.Fatalf("after release: %+v, %v", res, err)
		}
		f.wantTranscript(conv, "visitor: Talk to a human", "ai: A person is coming.", "visitor: Hello?",
			"visitor: When do you open?", "ai: We open at 9.")
	})
}
