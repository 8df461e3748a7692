package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// AddAuditEntry inserts the entry and deletes the account's entries
// older than keepAfter in one transaction.
func (s *Store) AddAuditEntry(ctx context.Context, e store.AuditEntry, keepAfter time.Time) (store.AuditEntry, error) {
	if err := store.CheckText(e.AccountID, e.ActorType, e.ActorID, e.Actor, e.IP, e.Action, e.Target); err != nil {
		return store.AuditEntry{}, err
	}
	e.At = store.OrNow(e.At)
	err := s.write(ctx, func(tx pgx.Tx) error {
		if !keepAfter.IsZero() {
			if _, err := tx.Exec(ctx, `DELETE FROM audit_log WHERE account_id = $1 AND at < $2`,
				e.AccountID, keepAfter); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, `INSERT INTO audit_log
			(account_id, at, actor_type, actor_id, actor, ip, action, target)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq`,
			e.AccountID, e.At, e.ActorType, e.ActorID, e.Actor, e.IP, e.Action, e.Target).Scan(&e.Seq)
	})
	if err != nil {
		return store.AuditEntry{}, fmt.Errorf("add audit entry: %w", dbErr(err))
	}
	return e, nil
}

// AuditEntries reads one page down audit_log_account.
func (s *Store) AuditEntries(ctx context.Context, accountID string, f store.AuditFilter) ([]store.AuditEntry, error) {
	if err := store.CheckText(accountID, f.Action); err != nil {
		return nil, err
	}
	before := f.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, _ := s.pool.Query(ctx, `SELECT seq, account_id, at, actor_type, actor_id, actor, ip, action, target
		FROM audit_log WHERE account_id = $1 AND seq < $2 AND ($3 = '' OR action = $3)
		ORDER BY seq DESC LIMIT $4`, accountID, before, f.Action, store.AuditQueryLimit(f.Limit))
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.AuditEntry, error) {
		var e store.AuditEntry
		err := row.Scan(&e.Seq, &e.AccountID, &e.At, &e.ActorType, &e.ActorID, &e.Actor, &e.IP, &e.Action, &e.Target)
		e.At = e.At.UTC()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("audit entries: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) APITokenByHash(ctx context.Context, tokenHash []byte) (domain.APIToken, error) {
	var t domain.APIToken
	var created time.Time
	err := s.pool.QueryRow(ctx, `SELECT id, account_id, name, created_at FROM api_tokens WHERE token_hash = $1`, tokenHash).
		Scan(&t.ID, &t.AccountID, &t.Name, &created)
	if err != nil {
		return domain.APIToken{}, notFound(err, domain.ErrNotFound)
	}
	t.CreatedAt = ms(created)
	return t, nil
}
