package chat

import (
	"context"
	"strings"
	"sync"
	"time"

	"parley/internal/domain"
	"parley/internal/notify"
)

// TypingTTL is how long one typing signal stays fresh. Clients send one
// at most every 3 seconds while someone types, so an indicator lasts
// through short pauses and goes out soon after typing stops.
const TypingTTL = 6 * time.Second

// Typing remembers, per conversation, who is typing now: the operator
// (with the name the visitor sees) and the visitor. It lives in each
// process's memory, not in the store: every signal travels to the other
// instances as a notifier hint (typingHint) and each applies it to its own
// record, on its own clock, so a widget poll or a dashboard page served by
// any instance sees it. An indicator is a hint: a lost signal costs one
// for a few seconds, nothing else.
type Typing struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]typingEntry
}

type typingEntry struct {
	operator   string    // display name; "" when none typed
	operatorAt time.Time // last operator signal
	visitorAt  time.Time // last visitor signal
}

// NewTyping returns an empty record read on the clock now.
func NewTyping(now func() time.Time) *Typing {
	if now == nil {
		now = time.Now
	}
	return &Typing{now: now, m: map[string]typingEntry{}}
}

func (t *Typing) fresh(at, now time.Time) bool {
	return !at.IsZero() && now.Sub(at) < TypingTTL
}

// OperatorTyping records that an operator named name types in the
// conversation; it reports whether this starts a new indicator (none was
// fresh), when listeners should be woken.
func (t *Typing) OperatorTyping(convID, name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	e := t.m[convID]
	started := !t.fresh(e.operatorAt, now) || e.operator != name
	e.operator, e.operatorAt = name, now
	t.m[convID] = e
	t.sweep(now)
	return started
}

// VisitorTyping records that the visitor types; it reports whether this
// starts a new indicator.
func (t *Typing) VisitorTyping(convID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	e := t.m[convID]
	started := !t.fresh(e.visitorAt, now)
	e.visitorAt = now
	t.m[convID] = e
	t.sweep(now)
	return started
}

// Operator is the name of the operator typing now and when that signal
// goes stale; "" when no one is.
func (t *Typing) Operator(convID string) (string, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[convID]
	if !ok || !t.fresh(e.operatorAt, t.now()) {
		return "", time.Time{}
	}
	return e.operator, e.operatorAt.Add(TypingTTL)
}

// Visitor is whether the visitor is typing now.
func (t *Typing) Visitor(convID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[convID]
	return ok && t.fresh(e.visitorAt, t.now())
}

// stopOperator forgets the operator's indicator (their reply was sent).
func (t *Typing) stopOperator(convID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.m[convID]; ok {
		e.operator, e.operatorAt = "", time.Time{}
		t.m[convID] = e
	}
}

// sweep drops stale entries once the map has grown, so memory follows the
// conversations typed in lately. Called with mu held.
func (t *Typing) sweep(now time.Time) {
	if len(t.m) < 1024 {
		return
	}
	for id, e := range t.m {
		if !t.fresh(e.operatorAt, now) && !t.fresh(e.visitorAt, now) {
			delete(t.m, id)
		}
	}
}

// Len is the number of conversations remembered (for tests).
func (t *Typing) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// typingHint is the notifier hint kind of typing signals. Its data is
// "o:" and the operator's name (an operator types, on the conversation's
// topic: the visitor's poll shows it), "v" (the visitor types, on the
// conversation's TeamTopic: only the dashboard shows it, and the
// visitor's own long poll need not wake) or "r" (an operator's reply was
// stored: their indicator goes; the reply's own signal, published after
// it, wakes everyone, and by then the hint has been applied everywhere).
const typingHint = "typing"

// applyHint is the typing record's notifier handler, on every instance.
func (t *Typing) applyHint(topic, data string) bool {
	convID := strings.TrimPrefix(topic, teamTopicPrefix)
	switch {
	case strings.HasPrefix(data, "o:"):
		return t.OperatorTyping(convID, data[2:])
	case data == "v":
		return t.VisitorTyping(convID)
	case data == "r":
		t.stopOperator(convID)
	}
	return false
}

// VisitorTypingInput is the widget's "the visitor is typing" signal.
type VisitorTypingInput struct {
	Key, ConversationID, Origin, VisitorID string
}

// VisitorTyping records the widget's signal for a conversation of the
// key's agent and the visitor. Only a conversation a person handles shows
// it (the AI does not wait for typing); for others it is accepted and
// ignored, so the widget need not know the mode exactly.
func (s *Service) VisitorTyping(ctx context.Context, in VisitorTypingInput) error {
	conv, err := s.widgetConversation(ctx, in.Key, in.Origin, in.ConversationID, in.VisitorID)
	if err != nil {
		return err
	}
	if conv.Mode != domain.ModeHuman {
		return nil
	}
	s.notifier.PublishHint(TeamTopic(conv.ID), notify.Hint{Kind: typingHint, Data: "v"})
	return nil
}

// OperatorTyping records that operator types in a conversation of the
// account; the visitor's widget shows it through its poll.
func (s *Service) OperatorTyping(ctx context.Context, accountID, conversationID string, op Operator) error {
	conv, err := s.operatorConversation(ctx, accountID, conversationID)
	if err != nil {
		return err
	}
	name, err := op.name()
	if err != nil {
		return err
	}
	// Every signal is sent, not only one that starts an indicator here:
	// the other instances must keep theirs fresh too. Each wakes its
	// waiters only when the indicator starts there (applyHint).
	s.notifier.PublishHint(conv.ID, notify.Hint{Kind: typingHint, Data: "o:" + name})
	return nil
}

// VisitorIsTyping is whether the visitor of a conversation types now (for
// the dashboard's conversation page).
func (s *Service) VisitorIsTyping(conversationID string) bool {
	return s.typing.Visitor(conversationID)
}
