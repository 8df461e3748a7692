package chat

import (
	"context"

	"parley/internal/domain"
)

// Desk is told of what the operator desk (internal/desk, issue 19) acts
// on: a visitor's message stored (a resolved conversation reopens) and a
// conversation that began waiting for a human (auto-assign). Its methods
// log their own failures: the chat goes on. Nil in Options: no desk.
type Desk interface {
	VisitorMessage(ctx context.Context, c domain.Conversation)
	Waiting(ctx context.Context, c domain.Conversation)
}

// toDesk tells the desk of an event chat emits.
func (s *Service) toDesk(ctx context.Context, typ string, c domain.Conversation, role domain.Role) {
	if s.desk == nil {
		return
	}
	// The visitor's message is stored: its handling goes on without them.
	ctx = context.WithoutCancel(ctx)
	switch {
	case typ == eventMessageCreated && role == domain.RoleVisitor:
		s.desk.VisitorMessage(ctx, c)
	case typ == eventConversationWaiting:
		s.desk.Waiting(ctx, c)
	}
}
