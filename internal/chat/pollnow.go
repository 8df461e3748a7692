package chat

import (
	"context"
	"errors"

	"parley/internal/domain"
)

// pollNow answers a short poll (no wait), and makes a long poll's first
// check, with one read of the messages and one of the conversation. Read
// after the messages, the conversation both proves that it belongs to the key's agent
// and gives the mode that goes with them (an operator's reply and its
// takeover are one write). Messages of a conversation that turns out not
// to be the key's are dropped unseen.
func (s *Service) pollNow(ctx context.Context, key, convID string, after int64) (PollResult, error) {
	ag, err := s.store.AgentByKey(ctx, key)
	if err != nil {
		return PollResult{}, err
	}
	msgs, err := s.store.MessagesAfter(ctx, convID, domain.RoleOperator, after, pollBatch)
	if err != nil {
		return PollResult{}, err
	}
	conv, err := s.store.Conversation(ctx, convID)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && conv.AgentID != ag.ID) {
		return PollResult{}, domain.ErrConversationInvalid
	}
	if err != nil {
		return PollResult{}, err
	}
	if len(msgs) > 0 {
		after = msgs[len(msgs)-1].Seq
	}
	return PollResult{Messages: msgs, Cursor: EncodeCursor(after), Human: conv.Mode == domain.ModeHuman}, nil
}
