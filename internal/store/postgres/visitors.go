package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// VisitorData reads the conversations, then all their messages in one
// query. conversations has no index on visitor_id: this scans the
// account's conversations down conversations_account, which a privacy
// request, rare and by hand, can afford (an index would cost every
// conversation's insert).
func (s *Store) VisitorData(ctx context.Context, accountID, visitorID string) ([]store.VisitorConversation, error) {
	if visitorID == "" {
		return nil, domain.ErrNotFound // "" would match every anonymous user_id
	}
	if err := store.CheckText(accountID, visitorID); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+convCols+` FROM conversations
		WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2) ORDER BY created_at, id`, accountID, visitorID)
	convs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Conversation, error) {
		return scanConversation(row)
	})
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", dbErr(err))
	}
	if len(convs) == 0 {
		return nil, domain.ErrNotFound
	}
	msgs, err := s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id IN (SELECT id FROM conversations WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2))
		ORDER BY conversation_id, seq`, accountID, visitorID)
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	return store.GroupVisitorMessages(convs, msgs), nil
}

// DeleteVisitor is one DELETE, atomic by itself; the messages go with the
// conversations (ON DELETE CASCADE). Nothing is cached here: every
// instance's next read of a deleted conversation finds none.
func (s *Store) DeleteVisitor(ctx context.Context, accountID, visitorID string) error {
	if visitorID == "" {
		return domain.ErrNotFound // "" would match every anonymous user_id
	}
	if err := store.CheckText(accountID, visitorID); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM conversations WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2)`, accountID, visitorID)
	if err != nil {
		return fmt.Errorf("delete visitor: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrNotFound
	}
	return nil
}
