package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The operator desk (issue 19). Every write goes through the single
// writer, so a read and the update that depends on it cannot interleave
// with another instance's: there is no other.

func (s *Store) SetStatus(ctx context.Context, conversationID string, st domain.Status) (bool, error) {
	if st != domain.StatusOpen && st != domain.StatusResolved {
		return false, domain.Invalid("status must be open or resolved")
	}
	changed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var cur domain.Status
		err := tx.QueryRowContext(ctx, `SELECT status FROM conversations WHERE id = ?`, conversationID).Scan(&cur)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if cur == st {
			return nil
		}
		changed = true
		s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: conversationID})
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET status = ?,
			waiting = CASE WHEN ? = 'resolved' THEN 0 ELSE waiting END,
			waiting_since = CASE WHEN ? = 'resolved' THEN NULL ELSE waiting_since END WHERE id = ?`, st, st, st, conversationID)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("set status: %w", err)
	}
	return changed, nil
}

func (s *Store) Assign(ctx context.Context, conversationID, userID, userName string) (domain.Conversation, error) {
	if err := store.CheckText(conversationID, userID, userName); err != nil {
		return domain.Conversation{}, err
	}
	var c domain.Conversation
	err := s.write(ctx, func(tx *sql.Tx) error {
		s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: conversationID})
		res, err := tx.ExecContext(ctx, `UPDATE conversations
			SET mode = 'human', waiting = 0, waiting_since = NULL, assignee_id = ?, assignee_name = ?, `+handOffSet+` WHERE id = ?`,
			append(append([]any{userID, userName}, handOffArgs(now())...), conversationID)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.ErrNotFound
		}
		c, err = scanConversation(tx.QueryRowContext(ctx, `SELECT `+convCols+` FROM conversations WHERE id = ?`, conversationID))
		return err
	})
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("assign: %w", err)
	}
	return c, nil
}

func (s *Store) AutoAssign(ctx context.Context, conversationID, userID, userName string, capacity int, at time.Time) (store.AssignOutcome, error) {
	if err := store.CheckText(conversationID, userID, userName); err != nil {
		return store.NotWaiting, err
	}
	out := store.NotWaiting
	err := s.write(ctx, func(tx *sql.Tx) error {
		var accountID string
		err := tx.QueryRowContext(ctx, `SELECT account_id FROM conversations
			WHERE id = ? AND mode = 'ai' AND waiting = 1 AND status = 'open'`, conversationID).Scan(&accountID)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		if capacity > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM conversations
				WHERE account_id = ? AND assignee_id = ? AND status = 'open' AND mode = 'human'`,
				accountID, userID).Scan(&n); err != nil {
				return err
			}
			if n >= capacity {
				out = store.OperatorFull
				return nil
			}
		}
		out = store.Assigned
		s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: conversationID})
		if _, err := tx.ExecContext(ctx, `UPDATE conversations
			SET mode = 'human', waiting = 0, waiting_since = NULL, assignee_id = ?, assignee_name = ?, `+handOffSet+` WHERE id = ?`,
			append(append([]any{userID, userName}, handOffArgs(at)...), conversationID)...); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE operator_presence SET last_assigned_at = ? WHERE user_id = ?`,
			millis(at), userID)
		return err
	})
	if err != nil {
		return store.NotWaiting, fmt.Errorf("auto-assign: %w", err)
	}
	return out, nil
}

func (s *Store) Heartbeat(ctx context.Context, accountID, userID string, at time.Time) (store.Presence, error) {
	var before store.Presence
	err := s.write(ctx, func(tx *sql.Tx) error {
		var seen, assigned int64
		err := tx.QueryRowContext(ctx, `SELECT last_seen_at, away, last_assigned_at FROM operator_presence
			WHERE user_id = ? AND account_id = ?`, userID, accountID).Scan(&seen, &before.Away, &assigned)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return err
		default:
			before.LastSeen = fromMillis(seen)
			if assigned > 0 {
				before.LastAssigned = fromMillis(assigned)
			}
		}
		before.UserID = userID
		_, err = tx.ExecContext(ctx, `INSERT INTO operator_presence (user_id, account_id, last_seen_at)
			SELECT id, account_id, ? FROM users WHERE id = ? AND account_id = ?
			ON CONFLICT (user_id) DO UPDATE SET last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
			millis(at), userID, accountID)
		return err
	})
	if err != nil {
		return store.Presence{}, fmt.Errorf("heartbeat: %w", err)
	}
	return before, nil
}

func (s *Store) SetAway(ctx context.Context, accountID, userID string, away bool, at time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO operator_presence (user_id, account_id, last_seen_at, away)
			SELECT id, account_id, ?, ? FROM users WHERE id = ? AND account_id = ?
			ON CONFLICT (user_id) DO UPDATE SET away = excluded.away`,
			millis(at), away, userID, accountID)
		return err
	})
	if err != nil {
		return fmt.Errorf("set away: %w", err)
	}
	return nil
}

func (s *Store) Presences(ctx context.Context, accountID string) ([]store.Presence, error) {
	rows, err := s.query(ctx, `SELECT p.user_id, CASE WHEN u.name <> '' THEN u.name ELSE u.email END,
			p.last_seen_at, p.away, p.last_assigned_at,
			(SELECT count(*) FROM conversations c WHERE c.account_id = p.account_id
				AND c.assignee_id = p.user_id AND c.status = 'open' AND c.mode = 'human')
		FROM operator_presence p JOIN users u ON u.id = p.user_id
		WHERE p.account_id = ? ORDER BY p.user_id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("presences: %w", err)
	}
	defer rows.Close()
	var out []store.Presence
	for rows.Next() {
		var p store.Presence
		var seen, assigned int64
		if err := rows.Scan(&p.UserID, &p.Name, &seen, &p.Away, &assigned, &p.Open); err != nil {
			return nil, fmt.Errorf("presences: %w", err)
		}
		p.LastSeen = fromMillis(seen)
		if assigned > 0 {
			p.LastAssigned = fromMillis(assigned)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (s *Store) DeskSettings(ctx context.Context, accountID string) (store.DeskSettings, error) {
	var d store.DeskSettings
	err := s.queryRow(ctx, `SELECT auto_assign, assign_cap FROM accounts WHERE id = ?`, accountID).Scan(&d.AutoAssign, &d.Cap)
	if err != nil {
		return store.DeskSettings{}, notFound(err, domain.ErrNotFound)
	}
	return d, nil
}

func (s *Store) SetDeskSettings(ctx context.Context, accountID string, d store.DeskSettings) error {
	if err := d.Check(); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET auto_assign = ?, assign_cap = ? WHERE id = ?`,
			d.AutoAssign, d.Cap, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.ErrNotFound
		}
		return nil
	})
}
