package chat

import (
	"context"
	"strings"
	"unicode/utf8"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/store"
)

// The handoff rules. A conversation starts AI-handled. An operator takes it
// over explicitly (TakeOver) or by replying (OperatorReply); from then on
// the AI stays silent and visitor messages are only stored. Release hands it
// back to the AI. Every change wakes the visitor's long poll.

// operatorConversation loads a conversation of the account; another
// account's conversation is domain.ErrNotFound.
func (s *Service) operatorConversation(ctx context.Context, accountID, id string) (domain.Conversation, error) {
	conv, err := s.store.Conversation(ctx, id)
	if err != nil {
		return domain.Conversation{}, err
	}
	if conv.AccountID != accountID {
		return domain.Conversation{}, domain.ErrNotFound
	}
	return conv, nil
}

// TakeOver makes an operator handle the conversation. It reports whether
// the mode changed (false if a human already had it).
func (s *Service) TakeOver(ctx context.Context, accountID, conversationID string) (bool, error) {
	return s.setMode(ctx, accountID, conversationID, domain.ModeHuman)
}

// Release hands the conversation back to the AI.
func (s *Service) Release(ctx context.Context, accountID, conversationID string) (bool, error) {
	return s.setMode(ctx, accountID, conversationID, domain.ModeAI)
}

func (s *Service) setMode(ctx context.Context, accountID, id string, m domain.Mode) (bool, error) {
	conv, err := s.operatorConversation(ctx, accountID, id)
	if err != nil {
		return false, err
	}
	changed, err := s.store.SetMode(ctx, id, m)
	if err == nil && changed {
		s.changed(accountID, id)
		action := audit.ConversationTakeover
		if m == domain.ModeAI {
			action = audit.ConversationRelease
		}
		s.audit.Record(ctx, accountID, action, audit.Target("conversation", id))
		conv.Mode = m
		typ := eventConversationTakenOver
		if m == domain.ModeAI {
			typ = eventConversationReleased
		}
		s.emitConversation(ctx, typ, conv, "")
	}
	return changed, err
}

// TakeOverAs hands the conversation to a dashboard user. Of two operators
// clicking at once exactly one wins; the other gets won=false and the
// conversation with the winner's name.
func (s *Service) TakeOverAs(ctx context.Context, accountID, conversationID string, u domain.User) (domain.Conversation, bool, error) {
	if _, err := s.operatorConversation(ctx, accountID, conversationID); err != nil {
		return domain.Conversation{}, false, err
	}
	conv, won, err := s.store.TakeOver(ctx, conversationID, u.ID, UserOperator(u).Name)
	if err == nil && won {
		s.changed(accountID, conversationID)
		s.audit.Record(ctx, accountID, audit.ConversationTakeover, audit.Target("conversation", conversationID))
		s.emitConversation(ctx, eventConversationTakenOver, conv, UserOperator(u).Name)
	}
	return conv, won, err
}

// Operator is who writes an operator reply.
type Operator struct {
	// Name is shown to the visitor with the reply; blank is "Operator".
	Name string
	// Chosen: the client sent Name with this request (the API's
	// operator_name), so a name over MaxOperatorName is its mistake to
	// fix: 400. A name it did not send (its account's or user's) is
	// shortened instead, since no request could fix it.
	Chosen bool
	// UserID is a dashboard user's id: a reply that takes the
	// conversation from the AI assigns it to them. "" through the API.
	UserID string
}

// UserOperator is a dashboard user as the operator of their replies.
func UserOperator(u domain.User) Operator {
	name := u.Name
	if strings.TrimSpace(name) == "" {
		name = u.Email
	}
	return Operator{Name: name, UserID: u.ID}
}

// name is the operator's name as stored: trimmed, "Operator" when blank,
// and a name the client did not choose cut to MaxOperatorName characters.
func (o Operator) name() (string, error) {
	name := strings.TrimSpace(o.Name)
	switch {
	case name == "":
		return "Operator", nil
	case utf8.RuneCountInString(name) <= MaxOperatorName:
		return name, nil
	case o.Chosen:
		return "", domain.Invalid("operator_name is longer than 100 characters")
	}
	return strings.TrimSpace(cutRunes(name, MaxOperatorName)), nil
}

// cutRunes returns the first n characters (code points) of s.
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// OperatorReply stores an operator's message, taking the conversation over
// in the same write if the AI was handling it (and assigning it to a
// dashboard user who replies). Everything is checked before that one
// write, so a refused reply changes nothing: not the mode, not the
// assignee.
func (s *Service) OperatorReply(ctx context.Context, accountID, conversationID string, op Operator, text string) (domain.Message, error) {
	if err := checkText(text); err != nil {
		return domain.Message{}, err
	}
	name, err := op.name()
	if err != nil {
		return domain.Message{}, err
	}
	before, err := s.operatorConversation(ctx, accountID, conversationID)
	if err != nil {
		return domain.Message{}, err
	}
	n := store.NewMessage{
		ConversationID: conversationID, Role: domain.RoleOperator, Text: text,
		OperatorName: name, CreatedAt: s.now(), SetMode: domain.ModeHuman, MaxMessages: s.maxMessages,
	}
	if op.UserID != "" {
		n.AssigneeID, n.AssigneeName = op.UserID, name
	}
	msg, conv, err := s.store.AddMessage(ctx, n)
	if err != nil {
		return domain.Message{}, err
	}
	// The indicator goes on every instance before the reply's signal
	// wakes anyone (typingHint).
	s.notifier.PublishHint(conversationID, notify.Hint{Kind: typingHint, Data: "r"})
	s.changed(accountID, conversationID)
	s.audit.Record(ctx, accountID, audit.ConversationReply, audit.Target("conversation", conversationID))
	if before.Mode != domain.ModeHuman {
		// The reply took the conversation from the AI.
		s.emitConversation(ctx, eventConversationTakenOver, conv, name)
	}
	s.emitMessage(ctx, conv, n)
	s.offlineReplied(ctx, conv)
	return msg, nil
}
