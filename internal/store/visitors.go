package store

import (
	"context"
	"time"

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
	// first, each with its whole transcript, oldest message first, and
	// what else is stored about the visitor per conversation: the browser
	// details and page history (VisitorDetails), when they left a contact
	// and last polled, and their rating (Offline). It reads a query per
	// kind for all the conversations, never one per conversation.
	VisitorData(ctx context.Context, accountID, visitorID string) ([]VisitorConversation, error)
	// DeleteVisitor deletes the visitor's conversations in the account
	// with their messages (and so their token counts) in one transaction.
	// Every other row of a conversation goes with it (ON DELETE CASCADE):
	// the browser details and page history, the contact time, the poll
	// time, the rating, the team's notes and the operators' read marks.
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
	// What the widget told about the browser and the pages the visitor
	// was on, as VisitorContext reads it (pages latest first); the zero
	// VisitorContext when none was stored.
	Details VisitorContext
	// ContactAt is when the visitor left a contact (VisitorContact) and
	// ContactLang the widget's language then; PolledAt when their widget
	// last polled (VisitorPolledAt). Zero when never.
	ContactAt   time.Time
	ContactLang string
	PolledAt    time.Time
	// Rating is the visitor's rating of the conversation, nil when none.
	Rating *Rating
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

// IndexVisitorConversations maps each conversation's id to its place in
// vcs, for the stores to fill in the other kinds they read after the
// transcripts (details, pages, contact, poll time, rating).
func IndexVisitorConversations(vcs []VisitorConversation) map[string]*VisitorConversation {
	out := make(map[string]*VisitorConversation, len(vcs))
	for i := range vcs {
		out[vcs[i].Conversation.ID] = &vcs[i]
	}
	return out
}
