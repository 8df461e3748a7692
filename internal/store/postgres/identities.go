package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
)

// IdentitySecret reads the agent's identity secret.
func (s *Store) IdentitySecret(ctx context.Context, accountID, agentID string) (string, error) {
	var secret string
	err := s.pool.QueryRow(ctx, `SELECT identity_secret FROM agents WHERE id = $1 AND account_id = $2`,
		agentID, accountID).Scan(&secret)
	if err != nil {
		return "", fmt.Errorf("identity secret: %w", notFound(err, domain.ErrNotFound))
	}
	return secret, nil
}

// SetIdentitySecret updates, then reads in a second statement: under READ
// COMMITTED that one sees a concurrent first reader's secret once it has
// committed (the update waited for its row lock and then skipped the row).
func (s *Store) SetIdentitySecret(ctx context.Context, accountID, agentID, secret string, onlyIfNone bool) (string, error) {
	q := `UPDATE agents SET identity_secret = $1 WHERE id = $2 AND account_id = $3`
	if onlyIfNone {
		q += ` AND identity_secret = ''`
	}
	var got string
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, q, secret, agentID, accountID); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT identity_secret FROM agents WHERE id = $1 AND account_id = $2`,
			agentID, accountID).Scan(&got)
		return notFound(err, domain.ErrNotFound)
	})
	if err != nil {
		return "", fmt.Errorf("set identity secret: %w", err)
	}
	return got, nil
}
