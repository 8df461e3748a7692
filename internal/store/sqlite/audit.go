package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// AddAuditEntry inserts the entry and deletes the account's entries
// older than keepAfter in one queued write.
func (s *Store) AddAuditEntry(ctx context.Context, e store.AuditEntry, keepAfter time.Time) (store.AuditEntry, error) {
	if err := store.CheckText(e.AccountID, e.ActorType, e.ActorID, e.Actor, e.IP, e.Action, e.Target); err != nil {
		return store.AuditEntry{}, err
	}
	e.At = store.OrNow(e.At)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if !keepAfter.IsZero() {
			if _, err := tx.ExecContext(ctx, `DELETE FROM audit_log WHERE account_id = ? AND at < ?`,
				e.AccountID, millis(keepAfter)); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, `INSERT INTO audit_log
			(account_id, at, actor_type, actor_id, actor, ip, action, target)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
			e.AccountID, millis(e.At), e.ActorType, e.ActorID, e.Actor, e.IP, e.Action, e.Target).Scan(&e.Seq)
	})
	if err != nil {
		return store.AuditEntry{}, fmt.Errorf("add audit entry: %w", constraintErr(err))
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
	out, err := queryAll(ctx, s, scanAuditEntry, `SELECT seq, account_id, at, actor_type, actor_id, actor, ip, action, target
		FROM audit_log WHERE account_id = ? AND seq < ? AND (? = '' OR action = ?)
		ORDER BY seq DESC LIMIT `+limitArg, accountID, before, f.Action, f.Action, store.AuditQueryLimit(f.Limit))
	if err != nil {
		return nil, fmt.Errorf("audit entries: %w", err)
	}
	return out, nil
}

func scanAuditEntry(sc scanner) (store.AuditEntry, error) {
	var e store.AuditEntry
	var at int64
	if err := sc.Scan(&e.Seq, &e.AccountID, &at, &e.ActorType, &e.ActorID, &e.Actor, &e.IP, &e.Action, &e.Target); err != nil {
		return store.AuditEntry{}, err
	}
	e.At = fromMillis(at)
	return e, nil
}

func (s *Store) APITokenByHash(ctx context.Context, tokenHash []byte) (domain.APIToken, error) {
	var t domain.APIToken
	var created int64
	err := s.queryRow(ctx, `SELECT id, account_id, name, created_at FROM api_tokens WHERE token_hash = ?`, tokenHash).
		Scan(&t.ID, &t.AccountID, &t.Name, &created)
	if err != nil {
		return domain.APIToken{}, notFound(err, domain.ErrNotFound)
	}
	t.CreatedAt = fromMillis(created)
	return t, nil
}
