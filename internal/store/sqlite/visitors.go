package sqlite

import (
	"context"
	"database/sql"
	"fmt"

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
	if err := store.CheckText(accountID, visitorID, visitorID); err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT `+convCols+` FROM conversations
		WHERE account_id = ? AND (visitor_id = ? OR user_id = ?) ORDER BY created_at, id`, accountID, visitorID, visitorID)
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	defer rows.Close()
	var convs []domain.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("visitor data: %w", err)
		}
		convs = append(convs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	if len(convs) == 0 {
		return nil, domain.ErrNotFound
	}
	msgs, err := s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id IN (SELECT id FROM conversations WHERE account_id = ? AND (visitor_id = ? OR user_id = ?))
		ORDER BY conversation_id, seq`, accountID, visitorID, visitorID)
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	return store.GroupVisitorMessages(convs, msgs), nil
}

// DeleteVisitor deletes the conversations; their messages go with them
// (ON DELETE CASCADE). Each deleted conversation is forgotten by the
// conversation and poll caches once the delete commits, so a poll of it
// afterwards answers as for an unknown conversation.
func (s *Store) DeleteVisitor(ctx context.Context, accountID, visitorID string) error {
	if visitorID == "" {
		return domain.ErrNotFound // "" would match every anonymous user_id
	}
	if err := store.CheckText(accountID, visitorID, visitorID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM conversations
			WHERE account_id = ? AND (visitor_id = ? OR user_id = ?) RETURNING id`, accountID, visitorID, visitorID)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			n++
			s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: id})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if n == 0 {
			return domain.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete visitor: %w", err)
	}
	return nil
}
