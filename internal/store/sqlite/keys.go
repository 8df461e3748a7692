package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/store"
)

const keyCols = `key, agent_id, account_id, active, created_at`

func scanKey(sc scanner) (domain.WidgetKey, error) {
	var k domain.WidgetKey
	var created int64
	if err := sc.Scan(&k.Key, &k.AgentID, &k.AccountID, &k.Active, &created); err != nil {
		return domain.WidgetKey{}, err
	}
	k.CreatedAt = fromMillis(created)
	return k, nil
}

func insertKey(ctx context.Context, tx *sql.Tx, k domain.WidgetKey) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO widget_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?)`,
		k.Key, k.AgentID, k.AccountID, k.Active, millis(k.CreatedAt))
	return err
}

// ownsAgent returns ErrNotFound unless agentID is an agent of accountID.
func ownsAgent(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, accountID, agentID string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM agents WHERE id = ? AND account_id = ?`, agentID, accountID).Scan(&one)
	return notFound(err, domain.ErrNotFound)
}

func (s *Store) CreateKey(ctx context.Context, accountID, agentID, key string) (domain.WidgetKey, error) {
	if err := store.CheckText(accountID, agentID, key); err != nil {
		return domain.WidgetKey{}, err
	}
	k := domain.WidgetKey{Key: key, AgentID: agentID, AccountID: accountID, Active: true, CreatedAt: now()}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := ownsAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		s.invalidate(cacheEvent{what: forgetAgents})
		return insertKey(ctx, tx, k)
	})
	if err != nil {
		return domain.WidgetKey{}, fmt.Errorf("create key: %w", constraintErr(err))
	}
	return k, nil
}

// RotateKey turns the agent's keys off and adds the new one in one write;
// the single writer serializes rotations, so each sees the last one's key.
func (s *Store) RotateKey(ctx context.Context, accountID, agentID, key string) (domain.WidgetKey, error) {
	if err := store.CheckText(accountID, agentID, key); err != nil {
		return domain.WidgetKey{}, err
	}
	var k domain.WidgetKey
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := ownsAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		s.invalidate(cacheEvent{what: forgetAgents})
		if _, err := tx.ExecContext(ctx, `UPDATE widget_keys SET active = 0 WHERE agent_id = ? AND active = 1`, agentID); err != nil {
			return err
		}
		k = domain.WidgetKey{Key: key, AgentID: agentID, AccountID: accountID, Active: true, CreatedAt: now()}
		return insertKey(ctx, tx, k)
	})
	if err != nil {
		return domain.WidgetKey{}, fmt.Errorf("rotate key: %w", constraintErr(err))
	}
	return k, nil
}

func (s *Store) Keys(ctx context.Context, accountID, agentID string) ([]domain.WidgetKey, error) {
	// Checked first so another account's agent is ErrNotFound rather than
	// an empty list.
	if err := ownsAgent(ctx, s.r, accountID, agentID); err != nil {
		return nil, err
	}
	return queryAll(ctx, s, scanKey, `SELECT `+keyCols+` FROM widget_keys WHERE agent_id = ? ORDER BY created_at, rowid`, agentID)
}

func (s *Store) SetKeyActive(ctx context.Context, accountID, key string, active bool) (domain.WidgetKey, error) {
	if err := store.CheckText(accountID, key); err != nil {
		return domain.WidgetKey{}, err
	}
	// Through the writer's queue like every write, so that the change
	// reaches the key cache where every write's does (cache.go).
	var k domain.WidgetKey
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx, `
			UPDATE widget_keys SET active = ? WHERE key = ? AND account_id = ?
			RETURNING `+keyCols, active, key, accountID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		s.invalidate(cacheEvent{what: forgetAgents})
		return nil
	})
	if err != nil {
		return domain.WidgetKey{}, err
	}
	return k, nil
}
