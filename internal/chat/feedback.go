package chat

import (
	"context"
	"errors"
	"strconv"

	"parley/internal/domain"
)

// FeedbackInput is the visitor's thumbs on one of the AI's answers
// (POST /api/widget/feedback, issue 20).
type FeedbackInput struct {
	Key            string
	ConversationID string
	Origin         string // the request's Origin header, as for chat
	VisitorID      string // optional; when sent it must be the conversation's visitor
	// MessageID is the answer's id as chat returned it (ChatResult.MessageID):
	// its seq as a decimal string.
	MessageID string
	Helpful   bool
}

// Feedback records the visitor's thumbs up (Helpful) or down on an AI
// answer of their conversation. One per answer: a second click replaces
// the first, and the same thumbs again changes nothing. The conversation's
// counts, its outcome and the knowledge gaps' questions follow in the same
// write (store.Feedback).
func (s *Service) Feedback(ctx context.Context, in FeedbackInput) error {
	seq, err := parseMessageID(in.MessageID)
	if err != nil {
		return err
	}
	conv, err := s.widgetConversation(ctx, in.Key, in.Origin, in.ConversationID, in.VisitorID)
	if err != nil {
		return err
	}
	conv, changed, err := s.store.SetFeedback(ctx, conv.ID, seq, in.Helpful)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.ErrMessageNotFound
	}
	if err != nil {
		return err
	}
	if changed {
		// Only the team sees the thumbs (the desk's transcript): the
		// visitor's long poll, which listens to the conversation's own
		// topic, has nothing new to fetch.
		s.notifier.Publish(TeamTopic(conv.ID))
	}
	return nil
}

// parseMessageID reads a message id the widget was given: a positive
// decimal seq.
func parseMessageID(id string) (int64, error) {
	if id == "" {
		return 0, domain.Invalid("message_id is required")
	}
	seq, err := strconv.ParseInt(id, 10, 64)
	if err != nil || seq <= 0 {
		return 0, domain.Invalid("message_id must be a message id from chat (a positive whole number as a string)")
	}
	return seq, nil
}
