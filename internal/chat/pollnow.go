package chat

import (
	"context"
	"errors"

	"parley/internal/domain"
)

// pollNow answers a short poll (no wait), and makes a long poll's first
// check: pollOnce, for a conversation that must belong to the key's agent.
func (s *Service) pollNow(ctx context.Context, key, origin, convID string, after int64) (PollResult, error) {
	ag, err := s.agent(ctx, key, origin)
	if err != nil {
		return PollResult{}, err
	}
	res, err := s.pollOnce(ctx, ag.ID, convID, after)
	if err == nil {
		s.offlineSeen(ctx, convID)
	}
	return res, err
}

// pollOnce reads what a poll returns now. Most polls find nothing new: the
// conversation's poll state (its agent, mode and latest operator message,
// which the SQLite store keeps in memory) answers them without reading
// messages. When there is news, the messages are read and then the state
// again, so that the mode returned goes with them (an operator's reply and
// its takeover are one write). With agentID set, a conversation of another
// agent is the spec's "conversation is invalid".
func (s *Service) pollOnce(ctx context.Context, agentID, convID string, after int64) (PollResult, error) {
	st, err := s.store.PollState(ctx, convID)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && agentID != "" && st.AgentID != agentID) {
		return PollResult{}, domain.ErrConversationInvalid
	}
	if err != nil {
		return PollResult{}, err
	}
	msgs := []domain.Message{}
	if st.LastOperatorSeq > after {
		if msgs, err = s.store.MessagesAfter(ctx, convID, domain.RoleOperator, after, pollBatch); err != nil {
			return PollResult{}, err
		}
		if st, err = s.store.PollState(ctx, convID); err != nil {
			return PollResult{}, err
		}
		if len(msgs) > 0 {
			after = msgs[len(msgs)-1].Seq
		}
	}
	res := PollResult{Messages: msgs, Cursor: EncodeCursor(after, st.Mode == domain.ModeHuman), Human: st.Mode == domain.ModeHuman, Rate: AskRating(st)}
	res.Typing, res.typingUntil = s.typing.Operator(convID)
	return res, nil
}
