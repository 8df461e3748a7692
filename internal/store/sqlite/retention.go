package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

func (s *Store) RetentionDays(ctx context.Context, accountID string) (int, error) {
	var days int
	err := s.queryRow(ctx, `SELECT retention_days FROM accounts WHERE id = ?`, accountID).Scan(&days)
	if err != nil {
		return 0, notFound(err, domain.ErrNotFound)
	}
	return days, nil
}

func (s *Store) SetRetentionDays(ctx context.Context, accountID string, days int) error {
	res, err := s.w.ExecContext(ctx, `UPDATE accounts SET retention_days = ? WHERE id = ?`, days, accountID)
	if err != nil {
		return fmt.Errorf("set retention: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return domain.ErrNotFound
	}
	return nil
}

func (s *Store) RetainingAccounts(ctx context.Context) ([]store.AccountRetention, error) {
	rows, err := s.query(ctx, `SELECT id, retention_days FROM accounts WHERE retention_days > 0 ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("retaining accounts: %w", err)
	}
	defer rows.Close()
	var out []store.AccountRetention
	for rows.Next() {
		var a store.AccountRetention
		if err := rows.Scan(&a.AccountID, &a.Days); err != nil {
			return nil, fmt.Errorf("retaining accounts: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// PurgeConversations deletes one batch in one write transaction; the
// messages go with the conversations (ON DELETE CASCADE). A
// conversation's last message is the newest by seq, one step down
// messages_conversation. Each deleted conversation is forgotten by the
// conversation and poll caches, as DeleteVisitor does.
func (s *Store) PurgeConversations(ctx context.Context, accountID string, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		ids, err := s.deleteConversations(ctx, tx, `DELETE FROM conversations WHERE id IN (
			SELECT c.id FROM conversations c
			WHERE c.account_id = ? AND coalesce((SELECT m.created_at FROM messages m
				WHERE m.conversation_id = c.id ORDER BY m.seq DESC LIMIT 1), c.created_at) < ?
			LIMIT `+limitArg+`) RETURNING id`, accountID, millis(before), limit)
		n = len(ids)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge conversations: %w", err)
	}
	return n, nil
}

// deleteConversations runs a DELETE FROM conversations … RETURNING id in
// tx and makes the caches forget each conversation it deleted (their rows
// of other tables go by ON DELETE CASCADE); it returns their ids, the
// rows closed so that tx can go on.
func (s *Store) deleteConversations(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: id})
	}
	return ids, rows.Close()
}
