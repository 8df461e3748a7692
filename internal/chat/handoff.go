package chat

import (
	"context"
	"strings"
	"unicode/utf8"

	"parley/internal/domain"
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
	if _, err := s.operatorConversation(ctx, accountID, id); err != nil {
		return false, err
	}
	changed, err := s.store.SetMode(ctx, id, m)
	if err == nil && changed {
		s.changed(accountID, id)
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
	name := u.Name
	if name == "" {
		name = u.Email
	}
	conv, won, err := s.store.TakeOver(ctx, conversationID, u.ID, name)
	if err == nil && won {
		s.changed(accountID, conversationID)
	}
	return conv, won, err
}

// OperatorReply stores an operator's message, taking the conversation over
// in the same transaction if the AI was handling it.
func (s *Service) OperatorReply(ctx context.Context, accountID, conversationID, operatorName, text string) (domain.Message, error) {
	if err := checkText(text); err != nil {
		return domain.Message{}, err
	}
	operatorName = strings.TrimSpace(operatorName)
	if operatorName == "" {
		operatorName = "Operator"
	}
	if utf8.RuneCountInString(operatorName) > MaxOperatorName {
		return domain.Message{}, domain.Invalid("operator_name is longer than 100 characters")
	}
	if _, err := s.operatorConversation(ctx, accountID, conversationID); err != nil {
		return domain.Message{}, err
	}
	msg, _, err := s.store.AddMessage(ctx, store.NewMessage{
		ConversationID: conversationID, Role: domain.RoleOperator, Text: text,
		OperatorName: operatorName, CreatedAt: s.now(), SetMode: domain.ModeHuman, MaxMessages: s.maxMessages,
	})
	if err != nil {
		return domain.Message{}, err
	}
	s.changed(accountID, conversationID)
	return msg, nil
}
