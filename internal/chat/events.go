package chat

import (
	"context"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// Emitter is told of what happens in conversations, for the account's
// webhooks (webhooks.Service). Emit must be cheap for an account without
// endpoints (a cached lookup) and must not fail the action: it returns
// nothing. Nil in Options: no events.
type Emitter interface {
	Emit(ctx context.Context, accountID, eventType string, data any)
}

// The event types chat emits (webhooks.EventTypes lists them all).
const (
	eventConversationStarted   = "conversation.started"
	eventMessageCreated        = "message.created"
	eventConversationWaiting   = "conversation.waiting"
	eventConversationTakenOver = "conversation.taken_over"
	eventConversationReleased  = "conversation.released"
	eventUsageThreshold        = "usage.threshold"
)

// ConversationEvent is the data of the conversation.* events.
type ConversationEvent struct {
	ConversationID string `json:"conversation_id"`
	AgentID        string `json:"agent_id"`
	VisitorID      string `json:"visitor_id"`
	Mode           string `json:"mode"`
	Operator       string `json:"operator,omitempty"` // who took it over, when known
}

// MessageEvent is the data of message.created.
type MessageEvent struct {
	ConversationID string    `json:"conversation_id"`
	AgentID        string    `json:"agent_id"`
	Role           string    `json:"role"` // visitor, ai or operator
	Text           string    `json:"text"`
	OperatorName   string    `json:"operator_name,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
}

func (s *Service) emit(ctx context.Context, accountID, typ string, data any) {
	if s.emitter != nil {
		// The action is done: the event is queued even if the client
		// has gone meanwhile.
		s.emitter.Emit(context.WithoutCancel(ctx), accountID, typ, data)
	}
}

func (s *Service) emitConversation(ctx context.Context, typ string, c domain.Conversation, operator string) {
	s.toDesk(ctx, typ, c, "")
	s.emit(ctx, c.AccountID, typ, ConversationEvent{ConversationID: c.ID, AgentID: c.AgentID, VisitorID: c.VisitorID, Mode: string(c.Mode), Operator: operator})
}

func (s *Service) emitMessage(ctx context.Context, c domain.Conversation, m store.NewMessage) {
	s.toDesk(ctx, eventMessageCreated, c, m.Role)
	s.emit(ctx, c.AccountID, eventMessageCreated, MessageEvent{ConversationID: c.ID, AgentID: c.AgentID, Role: string(m.Role),
		Text: m.Text, OperatorName: m.OperatorName, CreatedAt: store.StoredTime(m.CreatedAt)})
}

// UsageEvent is the data of usage.threshold: the account crossed one of
// its thresholds (quota.Threshold*) for the first time in the period.
// Conversations and Allowance are the allowance's use; OverageCents and
// SpendCapCents the overage's, with OveragePriceCents (0: overage off).
type UsageEvent struct {
	AccountID         string `json:"account_id"`
	Period            string `json:"period"`
	Threshold         string `json:"threshold"` // allowance_80, allowance_100 or spend_cap
	Conversations     int    `json:"conversations"`
	Allowance         int    `json:"allowance"`
	OverageCents      int64  `json:"overage_cents"`
	OveragePriceCents int64  `json:"overage_price_cents"`
	SpendCapCents     int64  `json:"spend_cap_cents"`
}

func (s *Service) emitThresholds(ctx context.Context, accountID string, crossed []domain.UsageThreshold) {
	for _, t := range crossed {
		s.emit(ctx, accountID, eventUsageThreshold, UsageEvent{AccountID: accountID, Period: t.Usage.Period, Threshold: t.Threshold,
			Conversations: t.Usage.Conversations, Allowance: t.Limits.MonthlyConversations, OverageCents: t.Usage.OverageCents,
			OveragePriceCents: t.Limits.OveragePriceCents, SpendCapCents: t.Limits.SpendCapCents})
	}
}
