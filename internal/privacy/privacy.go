// Package privacy answers privacy requests about one widget visitor
// (issue 18): the export of everything stored about them and its
// erasure. The management API (GET /api/v1/visitors/{id}/export, DELETE
// /api/v1/visitors/{id}) and the dashboard's conversation page both call
// this service, so the two give the same JSON and delete the same rows.
package privacy

import (
	"context"
	"strconv"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/store"
)

// Service reads and erases visitors' data, one account at a time.
type Service struct {
	Store store.Visitors
	// Audit records each export and erasure (visitor.export,
	// visitor.delete) with the actor the request carries; nil records
	// nothing.
	Audit *audit.Service
}

// Export is the JSON document of a visitor's data (openapi.json's
// VisitorExport): their conversations in the account, oldest first, each
// with its whole transcript.
type Export struct {
	VisitorID     string         `json:"visitor_id"`
	Conversations []Conversation `json:"conversations"`
}

// Conversation is a conversation as the management API summarizes it,
// with its messages.
type Conversation struct {
	ID            string      `json:"id"`
	AgentID       string      `json:"agent_id"`
	VisitorID     string      `json:"visitor_id"`
	Mode          domain.Mode `json:"mode"`
	PageURL       string      `json:"page_url"`
	CreatedAt     time.Time   `json:"created_at"`
	LastMessageAt *time.Time  `json:"last_message_at"`
	LastMessage   string      `json:"last_message"`
	Waiting       bool        `json:"waiting"`
	Messages      []Message   `json:"messages"`
}

// Message is one message as the management API shows it.
type Message struct {
	ID               string      `json:"id"`
	Role             domain.Role `json:"role"`
	Text             string      `json:"text"`
	CreatedAt        time.Time   `json:"created_at"`
	OperatorName     string      `json:"operator_name,omitempty"`
	PromptTokens     int64       `json:"prompt_tokens,omitempty"`
	CompletionTokens int64       `json:"completion_tokens,omitempty"`
}

// Export reads everything stored about the visitor in the account. A
// visitor with no conversation in it (another account's included) is
// domain.ErrNotFound.
func (s *Service) Export(ctx context.Context, accountID, visitorID string) (Export, error) {
	data, err := s.Store.VisitorData(ctx, accountID, visitorID)
	if err != nil {
		return Export{}, err
	}
	s.Audit.Record(ctx, accountID, audit.VisitorExport, audit.Target("visitor", visitorID))
	out := Export{VisitorID: visitorID, Conversations: make([]Conversation, 0, len(data))}
	for _, vc := range data {
		c := vc.Conversation
		conv := Conversation{ID: c.ID, AgentID: c.AgentID, VisitorID: c.VisitorID, Mode: c.Mode, PageURL: c.PageURL,
			CreatedAt: c.CreatedAt, LastMessage: c.LastMessage, Waiting: c.Waiting, Messages: make([]Message, 0, len(vc.Messages))}
		if !c.LastMessageAt.IsZero() {
			t := c.LastMessageAt
			conv.LastMessageAt = &t
		}
		for _, m := range vc.Messages {
			conv.Messages = append(conv.Messages, Message{ID: strconv.FormatInt(m.Seq, 10), Role: m.Role, Text: m.Text,
				CreatedAt: m.CreatedAt, OperatorName: m.OperatorName, PromptTokens: m.Tokens.Prompt, CompletionTokens: m.Tokens.Completion})
		}
		out.Conversations = append(out.Conversations, conv)
	}
	return out, nil
}

// Delete erases the visitor's conversations in the account with their
// messages (store.Visitors.DeleteVisitor); domain.ErrNotFound like Export.
func (s *Service) Delete(ctx context.Context, accountID, visitorID string) error {
	if err := s.Store.DeleteVisitor(ctx, accountID, visitorID); err != nil {
		return err
	}
	s.Audit.Record(ctx, accountID, audit.VisitorDelete, audit.Target("visitor", visitorID))
	return nil
}
