package chat

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"parley/internal/domain"
)

// message reads the conversation's message with seq, failing when none.
func (f *fixture) message(conv string, seq int64) domain.Message {
	f.t.Helper()
	page, err := f.store.LatestMessages(f.ctx, conv, 0, 500)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, m := range page.Messages {
		if m.Seq == seq {
			return m
		}
	}
	f.t.Fatalf("conversation %s has no message %d", conv, seq)
	return domain.Message{}
}

// An answer's id comes back with it; the visitor's thumbs on it are
// stored with the message, changeable, and counted on the conversation.
// The same thumbs again changes nothing and wakes nobody; a change wakes
// the team's pages of the conversation only (the visitor's poll has
// nothing new to fetch).
func TestFeedbackOnAnAnswer(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant})
		conv := f.init()
		res, err := f.chat(conv, "When do you open?")
		if err != nil || res.Handoff || res.MessageID == 0 {
			t.Fatalf("Chat = %+v, %v; want an answer with its id", res, err)
		}
		if m := f.message(conv, res.MessageID); m.Role != domain.RoleAI || m.Text != "We open at 9." || m.Helpful != nil {
			t.Fatalf("message %d = %+v, want the AI's answer without thumbs", res.MessageID, m)
		}
		id := strconv.FormatInt(res.MessageID, 10)
		give := func(helpful bool) {
			t.Helper()
			if err := f.svc.Feedback(f.ctx, FeedbackInput{Key: f.key, ConversationID: conv, MessageID: id, Helpful: helpful}); err != nil {
				t.Fatalf("Feedback(%v): %v", helpful, err)
			}
		}
		f.notes.take()
		for _, step := range []struct {
			helpful              bool
			wantHelpful, wantNot int
			wantPublished        []string
		}{
			{false, 0, 1, []string{TeamTopic(conv)}},
			{true, 1, 0, []string{TeamTopic(conv)}},
			{true, 1, 0, nil}, // the same click again
		} {
			give(step.helpful)
			m := f.message(conv, res.MessageID)
			if m.Helpful == nil || *m.Helpful != step.helpful {
				t.Fatalf("after Feedback(%v) the message's Helpful = %v", step.helpful, m.Helpful)
			}
			if c := f.conv(conv); c.Helpful != step.wantHelpful || c.NotHelpful != step.wantNot {
				t.Fatalf("after Feedback(%v): conversation Helpful %d NotHelpful %d, want %d %d", step.helpful, c.Helpful, c.NotHelpful, step.wantHelpful, step.wantNot)
			}
			if got := f.notes.take(); !slices.Equal(got, step.wantPublished) {
				t.Fatalf("after Feedback(%v) published %q, want %q", step.helpful, got, step.wantPublished)
			}
		}
	})
}

// Feedback names an AI answer of the visitor's own conversation: anything
// else is a 400 (no id, not an id), a 403 (the key's or conversation's
// checks, as for chat) or a 404 (no AI answer of this conversation), and
// stores nothing.
func TestFeedbackRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	res, err := f.chat(conv, "When do you open?")
	if err != nil || res.MessageID == 0 {
		t.Fatalf("Chat = %+v, %v", res, err)
	}
	visitorSeq := res.MessageID - 1
	if m := f.message(conv, visitorSeq); m.Role != domain.RoleVisitor {
		t.Fatalf("message %d = %+v, want the visitor's question", visitorSeq, m)
	}
	other := f.init()
	otherRes, err := f.chat(other, "And on Sundays?")
	if err != nil || otherRes.MessageID == 0 {
		t.Fatalf("Chat = %+v, %v", otherRes, err)
	}
	if _, err := f.svc.TakeOver(f.ctx, f.account.ID, other); err != nil {
		t.Fatal(err)
	}
	op, err := f.svc.OperatorReply(f.ctx, f.account.ID, other, Operator{Name: "Ion"}, "Closed on Sundays.")
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey := f.newAgent(f.account.ID, "{}")
	id := strconv.FormatInt(res.MessageID, 10)
	seq := func(n int64) string { return strconv.FormatInt(n, 10) }

	var invalid *domain.InvalidError
	for _, tt := range []struct {
		name string
		in   FeedbackInput
		want func(error) bool
	}{
		{"no message id", FeedbackInput{Key: f.key, ConversationID: conv}, func(err error) bool { return errors.As(err, &invalid) }},
		{"letters", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: "abc"}, func(err error) bool { return errors.As(err, &invalid) }},
		{"a fraction", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: id + ".5"}, func(err error) bool { return errors.As(err, &invalid) }},
		{"zero", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: "0"}, func(err error) bool { return errors.As(err, &invalid) }},
		{"negative", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: "-" + id}, func(err error) bool { return errors.As(err, &invalid) }},
		{"spaces", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: " " + id}, func(err error) bool { return errors.As(err, &invalid) }},
		{"another agent's key", FeedbackInput{Key: otherKey, ConversationID: conv, MessageID: id}, is(domain.ErrConversationInvalid)},
		{"another visitor", FeedbackInput{Key: f.key, ConversationID: conv, VisitorID: "v_someoneelse", MessageID: id}, is(domain.ErrConversationInvalid)},
		{"an unknown conversation", FeedbackInput{Key: f.key, ConversationID: "cnv_unknown", MessageID: id}, is(domain.ErrConversationInvalid)},
		{"no key", FeedbackInput{ConversationID: conv, MessageID: id}, func(err error) bool { return errors.As(err, &invalid) }},
		{"the visitor's message", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: seq(visitorSeq)}, is(domain.ErrMessageNotFound)},
		{"another conversation's answer", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: seq(otherRes.MessageID)}, is(domain.ErrMessageNotFound)},
		{"an operator's message", FeedbackInput{Key: f.key, ConversationID: other, MessageID: seq(op.Seq)}, is(domain.ErrMessageNotFound)},
		{"no such message", FeedbackInput{Key: f.key, ConversationID: conv, MessageID: seq(op.Seq + 1000)}, is(domain.ErrMessageNotFound)},
	} {
		if err := f.svc.Feedback(f.ctx, tt.in); !tt.want(err) {
			t.Errorf("%s: Feedback = %v", tt.name, err)
		}
	}
	for _, c := range []string{conv, other} {
		if got := f.conv(c); got.Helpful != 0 || got.NotHelpful != 0 {
			t.Errorf("a refused feedback counted on %s: %+v", c, got)
		}
	}
	if m := f.message(conv, res.MessageID); m.Helpful != nil {
		t.Errorf("a refused feedback was stored: %+v", m)
	}
}

// Only an answer carries an id: the message that hands over to a person
// answers nothing, and while an operator handles the conversation the AI
// does not answer at all.
func TestNothingToRateWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, instant bool) {
		t.Parallel()
		f := newFixture(t, fixtureOptions{instant: instant, config: handoffConfig})
		conv := f.init()
		res, err := f.chat(conv, "Talk to a human")
		if err != nil || res.Response != "A person is coming." || res.MessageID != 0 {
			t.Fatalf("asking for a person: %+v, %v; want the handoff message without an id", res, err)
		}
		if _, err := f.svc.TakeOver(f.ctx, f.account.ID, conv); err != nil {
			t.Fatal(err)
		}
		if res, err := f.chat(conv, "Hello?"); err != nil || !res.Handoff || res.MessageID != 0 {
			t.Fatalf("while an operator handles it: %+v, %v", res, err)
		}
	})
}
