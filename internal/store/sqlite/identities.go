package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
)

// IdentitySecret reads the agent's identity secret.
func (s *Store) IdentitySecret(ctx context.Context, accountID, agentID string) (string, error) {
	var secret string
	err := s.queryRow(ctx, `SELECT identity_secret FROM agents WHERE id = ? AND account_id = ?`,
		agentID, accountID).Scan(&secret)
	if err != nil {
		return "", fmt.Errorf("identity secret: %w", notFound(err, domain.ErrNotFound))
	}
	return secret, nil
}

// SetIdentitySecret writes and reads back in one writer transaction.
func (s *Store) SetIdentitySecret(ctx context.Context, accountID, agentID, secret string, onlyIfNone bool) (string, error) {
	var got string
	err := s.write(ctx, func(tx *sql.Tx) error {
		q := `UPDATE agents SET identity_secret = ? WHERE id = ? AND account_id = ?`
		if onlyIfNone {
			q += ` AND identity_secret = ''`
		}
		if _, err := tx.ExecContext(ctx, q, secret, agentID, accountID); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT identity_secret FROM agents WHERE id = ? AND account_id = ?`,
			agentID, accountID).Scan(&got)
		return notFound(err, domain.ErrNotFound)
	})
	if err != nil {
		return "", fmt.Errorf("set identity secret: %w", err)
	}
	return got, nil
}
