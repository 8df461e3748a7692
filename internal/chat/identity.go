package chat

import (
	"context"
	"slices"

	"parley/internal/domain"
	"parley/internal/store"
)

// HistoryMessages is how many of a verified visitor's latest messages
// init hands a new device (the newest ones of their last conversation).
const HistoryMessages = 50

// historyLookback is how many of a user's latest conversations are looked
// through for the last one with messages.
const historyLookback = 10

// History is a verified visitor's previous conversation with the agent,
// for the widget to show on a new device: its id and its latest messages,
// oldest first.
type History struct {
	ConversationID string
	Messages       []domain.Message
}

// identify applies the agent's identity rule (domain.AgentConfig.
// VerifyIdentity). The secret is read only when a hash is to be checked,
// so anonymous inits cost no extra read.
func (s *Service) identify(ctx context.Context, ag domain.Agent, id domain.Identity) (domain.VerifiedIdentity, error) {
	secret := ""
	if id.UserID != "" && id.UserHash != "" {
		var err error
		if secret, err = s.store.IdentitySecret(ctx, ag.AccountID, ag.ID); err != nil {
			return domain.VerifiedIdentity{}, err
		}
	}
	return ag.Config.VerifyIdentity(secret, id)
}

// history finds a verified user's latest conversation with the agent
// (before the one init is creating) and reads its latest messages. Only a
// verified user id reaches here: a visitor_id, which any page can send,
// never opens another visitor's history. nil when there is none.
func (s *Service) history(ctx context.Context, ag domain.Agent, userID string) (*History, error) {
	if userID == "" {
		return nil, nil
	}
	// The latest one with messages: a chat opened on another device and
	// left empty must not hide the last real one.
	page, err := s.store.Conversations(ctx, ag.AccountID, store.ConversationFilter{AgentID: ag.ID, UserID: userID, Limit: historyLookback})
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(page.Conversations, func(c domain.Conversation) bool { return !c.LastMessageAt.IsZero() })
	if i < 0 {
		return nil, nil
	}
	conv := page.Conversations[i]
	msgs, err := s.store.LatestMessages(ctx, conv.ID, 0, HistoryMessages)
	if err != nil {
		return nil, err
	}
	return &History{ConversationID: conv.ID, Messages: msgs.Messages}, nil
}
