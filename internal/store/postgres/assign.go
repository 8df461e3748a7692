package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// The operator desk (issue 19). Writes are conditional UPDATEs, and
// AutoAssign locks the operator's presence row while it counts against
// the cap, so instances racing stay exact.

func (s *Store) SetStatus(ctx context.Context, conversationID string, st domain.Status) (bool, error) {
	if st != domain.StatusOpen && st != domain.StatusResolved {
		return false, domain.Invalid("status must be open or resolved")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE conversations SET status = $1,
		waiting = CASE WHEN $1 = 'resolved' THEN false ELSE waiting END,
		waiting_since = CASE WHEN $1 = 'resolved' THEN NULL ELSE waiting_since END
		WHERE id = $2 AND status <> $1`, string(st), conversationID)
	if err != nil {
		return false, fmt.Errorf("set status: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		if _, err := s.Conversation(ctx, conversationID); err != nil {
			return false, fmt.Errorf("set status: %w", err)
		}
		return false, nil
	}
	return true, nil
}

func (s *Store) Assign(ctx context.Context, conversationID, userID, userName string) (domain.Conversation, error) {
	c, err := scanConversation(s.pool.QueryRow(ctx, `UPDATE conversations
		SET mode = 'human', waiting = false, waiting_since = NULL, assignee_id = $1, assignee_name = $2, `+handOffSet(4)+`
		WHERE id = $3 RETURNING `+convCols, append([]any{userID, userName, conversationID}, handOffArgs(now())...)...))
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("assign: %w", notFound(dbErr(err), domain.ErrNotFound))
	}
	return c, nil
}

func (s *Store) AutoAssign(ctx context.Context, conversationID, userID, userName string, capacity int, at time.Time) (store.AssignOutcome, error) {
	out := store.NotWaiting
	err := s.write(ctx, func(tx pgx.Tx) error {
		out = store.NotWaiting
		// The operator's row, locked: another instance assigning to them
		// waits here and then counts what this one committed.
		var accountID string
		err := tx.QueryRow(ctx, `SELECT account_id FROM operator_presence WHERE user_id = $1 FOR UPDATE`, userID).Scan(&accountID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // never seen: not online
		}
		if err != nil {
			return err
		}
		if capacity > 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM conversations
				WHERE account_id = $1 AND assignee_id = $2 AND status = 'open' AND mode = 'human'`,
				accountID, userID).Scan(&n); err != nil {
				return err
			}
			if n >= capacity {
				out = store.OperatorFull
				return nil
			}
		}
		// The compare-and-set: only a conversation that still waits.
		tag, err := tx.Exec(ctx, `UPDATE conversations
			SET mode = 'human', waiting = false, waiting_since = NULL, assignee_id = $1, assignee_name = $2, `+handOffSet(5)+`
			WHERE id = $3 AND account_id = $4 AND mode = 'ai' AND waiting AND status = 'open'`,
			append([]any{userID, userName, conversationID, accountID}, handOffArgs(at)...)...)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		out = store.Assigned
		_, err = tx.Exec(ctx, `UPDATE operator_presence SET last_assigned_at = $1 WHERE user_id = $2`, at, userID)
		return err
	})
	if err != nil {
		return store.NotWaiting, fmt.Errorf("auto-assign: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) Heartbeat(ctx context.Context, accountID, userID string, at time.Time) (store.Presence, error) {
	before := store.Presence{UserID: userID}
	var seen, assigned *time.Time
	var away *bool
	err := s.pool.QueryRow(ctx, `
		WITH old AS (SELECT last_seen_at, away, last_assigned_at FROM operator_presence
			WHERE user_id = $1 AND account_id = $2),
		up AS (INSERT INTO operator_presence (user_id, account_id, last_seen_at)
			SELECT id, account_id, $3 FROM users WHERE id = $1 AND account_id = $2
			ON CONFLICT (user_id) DO UPDATE SET last_seen_at = greatest(operator_presence.last_seen_at, excluded.last_seen_at))
		SELECT (SELECT last_seen_at FROM old), (SELECT away FROM old), (SELECT last_assigned_at FROM old)`,
		userID, accountID, at).Scan(&seen, &away, &assigned)
	if err != nil {
		return store.Presence{}, fmt.Errorf("heartbeat: %w", dbErr(err))
	}
	if seen != nil {
		before.LastSeen = ms(*seen)
	}
	if away != nil {
		before.Away = *away
	}
	if assigned != nil && assigned.Unix() > 0 {
		before.LastAssigned = ms(*assigned)
	}
	return before, nil
}

func (s *Store) SetAway(ctx context.Context, accountID, userID string, away bool, at time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO operator_presence (user_id, account_id, last_seen_at, away)
		SELECT id, account_id, $3, $4 FROM users WHERE id = $1 AND account_id = $2
		ON CONFLICT (user_id) DO UPDATE SET away = excluded.away`, userID, accountID, at, away)
	if err != nil {
		return fmt.Errorf("set away: %w", dbErr(err))
	}
	return nil
}

func (s *Store) Presences(ctx context.Context, accountID string) ([]store.Presence, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.user_id, CASE WHEN u.name <> '' THEN u.name ELSE u.email END,
			p.last_seen_at, p.away, p.last_assigned_at,
			(SELECT count(*) FROM conversations c WHERE c.account_id = p.account_id
				AND c.assignee_id = p.user_id AND c.status = 'open' AND c.mode = 'human')
		FROM operator_presence p JOIN users u ON u.id = p.user_id
		WHERE p.account_id = $1 ORDER BY p.user_id`, accountID)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Presence, error) {
		var p store.Presence
		var assigned time.Time
		err := row.Scan(&p.UserID, &p.Name, &p.LastSeen, &p.Away, &assigned, &p.Open)
		p.LastSeen = ms(p.LastSeen)
		if assigned.Unix() > 0 {
			p.LastAssigned = ms(assigned)
		}
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("presences: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) DeskSettings(ctx context.Context, accountID string) (store.DeskSettings, error) {
	var d store.DeskSettings
	err := s.pool.QueryRow(ctx, `SELECT auto_assign, assign_cap FROM accounts WHERE id = $1`, accountID).Scan(&d.AutoAssign, &d.Cap)
	if err != nil {
		return store.DeskSettings{}, notFound(dbErr(err), domain.ErrNotFound)
	}
	return d, nil
}

func (s *Store) SetDeskSettings(ctx context.Context, accountID string, d store.DeskSettings) error {
	if err := d.Check(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE accounts SET auto_assign = $1, assign_cap = $2 WHERE id = $3`, d.AutoAssign, d.Cap, accountID)
	if err != nil {
		return fmt.Errorf("set desk settings: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrNotFound
	}
	return nil
}
