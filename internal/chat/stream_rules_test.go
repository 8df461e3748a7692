package chat

import (
	"slices"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
)

// streamChat is a chat with OnDelta set; it returns the pieces handed on.
func (f *fixture) streamChat(conv, text string) (ChatResult, []string, error) {
	var deltas []string
	res, err := f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: text, OnDelta: func(s string) { deltas = append(deltas, s) }})
	return res, deltas, err
}

// A streamed chat follows the same rules as a plain one: a responder that
// cannot stream gives its reply as one piece and the same result and
// transcript; while an operator has the conversation nothing streams and
// the result is the handoff; a visitor asking for a human gets the
// handoff message in the result, not as a piece.
func TestStreamedChatRules(t *testing.T) {
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant})
		conv := f.init()
		res, deltas, err := f.streamChat(conv, "When do you open?")
		if err != nil || res.Response != "We open at 9." || !slices.Equal(res.Options, []string{"Shipping?"}) || !slices.Equal(deltas, []string{"We open at 9."}) {
			t.Fatalf("result %+v, deltas %q, %v", res, deltas, err)
		}
		f.wantTranscript(conv, "visitor: When do you open?", "ai: We open at 9.")

		res, deltas, err = f.streamChat(conv, "human please")
		if err != nil || res.Handoff || res.Response == "" || len(deltas) != 0 {
			t.Fatalf("asking for a human: %+v, deltas %q, %v", res, deltas, err)
		}
		if _, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil {
			t.Fatal(err)
		}
		calls := f.ai.Calls()
		res, deltas, err = f.streamChat(conv, "Hello?")
		if err != nil || !res.Handoff || len(deltas) != 0 || f.ai.Calls() != calls {
			t.Fatalf("human-handled: %+v, deltas %q, %v; the AI was asked %d times", res, deltas, err, f.ai.Calls()-calls)
		}
	})
}

// The second miss in a row is streamed as the model wrote it, but the
// result, and the stored message, is the "a person has been asked"
// message: the pieces are a preview, the result is the answer.
func TestStreamedSecondMissIsTheHandoffMessage(t *testing.T) {
	t.Parallel()
	miss := agent.Reply{Text: "I don't know.", Unanswered: true}
	f := newFixture(t, fixtureOptions{replies: []agent.Reply{miss}})
	conv := f.init()
	if _, _, err := f.streamChat(conv, "Do you sell boats?"); err != nil {
		t.Fatal(err)
	}
	res, deltas, err := f.streamChat(conv, "Do you sell cars?")
	if err != nil || !slices.Equal(deltas, []string{"I don't know."}) || res.Response == "I don't know." || res.Response == "" {
		t.Fatalf("second miss: %+v, deltas %q, %v", res, deltas, err)
	}
	if c := f.conv(conv); !c.Waiting || c.Mode != domain.ModeAI {
		t.Errorf("conversation %+v, want waiting for a human", c)
	}
}
