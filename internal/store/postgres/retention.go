package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

func (s *Store) RetentionDays(ctx context.Context, accountID string) (int, error) {
	if err := store.CheckText(accountID); err != nil {
		return 0, err
	}
	var days int
	err := s.pool.QueryRow(ctx, `SELECT retention_days FROM accounts WHERE id = $1`, accountID).Scan(&days)
	if err != nil {
		return 0, notFound(err, domain.ErrNotFound)
	}
	return days, nil
}

func (s *Store) SetRetentionDays(ctx context.Context, accountID string, days int) error {
	if err := store.CheckText(accountID); err != nil {
		return err
	}
	err := rowsAffected(s.pool.Exec(ctx, `UPDATE accounts SET retention_days = $1 WHERE id = $2`, days, accountID))
	if err != nil {
		return fmt.Errorf("set retention: %w", err)
	}
	return nil
}

func (s *Store) RetainingAccounts(ctx context.Context) ([]store.AccountRetention, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, retention_days FROM accounts WHERE retention_days > 0 ORDER BY id`)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.AccountRetention, error) {
		var a store.AccountRetention
		err := row.Scan(&a.AccountID, &a.Days)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("retaining accounts: %w", dbErr(err))
	}
	return out, nil
}

// PurgeConversations is one DELETE of at most limit rows, atomic by
// itself; the messages go with the conversations (ON DELETE CASCADE).
// Nothing is cached here.
func (s *Store) PurgeConversations(ctx context.Context, accountID string, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	if err := store.CheckText(accountID); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM conversations WHERE id IN (
		SELECT c.id FROM conversations c
		WHERE c.account_id = $1 AND coalesce((SELECT m.created_at FROM messages m
			WHERE m.conversation_id = c.id ORDER BY m.seq DESC LIMIT 1), c.created_at) < $2
		LIMIT $3)`, accountID, before, limit)
	if err != nil {
		return 0, fmt.Errorf("purge conversations: %w", dbErr(err))
	}
	return int(tag.RowsAffected()), nil
}
