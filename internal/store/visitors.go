package store

import (
	"context"

	"parley/internal/domain"
)

// Visitors answer privacy requests about one widget visitor (issue 18):
// everything stored about them, and erasing it. A visitor is named by the
// visitor_id the widget sent or by the verified user_id of identity
// verification: both methods take the conversations whose visitor_id OR
// whose verified user_id equals the id given (a user_id is stored only
// when verified, so an unverified claim never joins them).
//
// Only the account's own conversations count: a visitor with none in the
// account (another account's, or unknown) is domain.ErrNotFound, so the
// API cannot tell an account whether another one knows a visitor.
type Visitors interface {
	// VisitorData reads the visitor's conversations in the account, oldest
	// first, each with its whole transcript, oldest message first.
	VisitorData(ctx context.Context, accountID, visitorID string) ([]VisitorConversation, error)
	// DeleteVisitor deletes the visitor's conversations in the account
	// with their messages (and so their token counts) in one transaction.
	// The account's usage is not lowered: a conversation that happened is
	// still billed, and usage rows name no visitor. Vectors and sources
	// are an agent's, never a visitor's, so they stay.
	DeleteVisitor(ctx context.Context, accountID, visitorID string) error
}

// VisitorConversation is one conversation of a visitor with its
// transcript.
type VisitorConversation struct {
	Conversation domain.Conversation
	Messages     []domain.Message
}

// GroupVisitorMessages puts msgs, ordered by conversation and then seq
// as both stores read them, under their conversations. Both stores read
// the transcripts in one query rather than one per conversation.
func GroupVisitorMessages(convs []domain.Conversation, msgs []domain.Message) []VisitorConversation {
	byID := make(map[string][]domain.Message, len(convs))
	for _, m := range msgs {
		byID[m.ConversationID] = append(byID[m.ConversationID], m)
	}
	out := make([]VisitorConversation, 0, len(convs))
	for _, c := range convs {
		ms := byID[c.ID]
		if ms == nil {
			ms = []domain.Message{}
		}
		out = append(out, VisitorConversation{Conversation: c, Messages: ms})
	}
	return out
}
