package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The Offline store (issue 19): see store.Offline.

func (s *Store) BusinessHours(ctx context.Context, accountID string) (string, error) {
	var h string
	err := s.queryRow(ctx, `SELECT hours FROM business_hours WHERE account_id = ?`, accountID).Scan(&h)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("business hours: %w", err)
	}
	return h, nil
}

func (s *Store) SetBusinessHours(ctx context.Context, accountID, hoursJSON string) error {
	if err := store.CheckText(accountID, hoursJSON); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = ?`, accountID).Scan(&one); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO business_hours (account_id, hours) VALUES (?, ?)
			ON CONFLICT (account_id) DO UPDATE SET hours = excluded.hours`, accountID, hoursJSON)
		return err
	})
	if err != nil {
		return fmt.Errorf("set business hours: %w", err)
	}
	return nil
}

func (s *Store) SetVisitorContact(ctx context.Context, conversationID string, c store.NewContact) error {
	if err := store.CheckText(conversationID, c.Name, c.Email, c.Lang); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var verified bool
		if err := tx.QueryRowContext(ctx, `SELECT verified FROM conversations WHERE id = ?`, conversationID).Scan(&verified); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if !verified {
			s.invalidate(cacheEvent{what: forgetConversation, id: conversationID})
			if _, err := tx.ExecContext(ctx, `UPDATE conversations SET visitor_name = ?, visitor_email = ? WHERE id = ?`,
				c.Name, c.Email, conversationID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO visitor_contacts (conversation_id, given_at, language) VALUES (?, ?, ?)
			ON CONFLICT (conversation_id) DO UPDATE SET given_at = excluded.given_at, language = excluded.language`,
			conversationID, millis(c.At), c.Lang)
		return err
	})
	if err != nil {
		return fmt.Errorf("set visitor contact: %w", err)
	}
	return nil
}

func (s *Store) VisitorContact(ctx context.Context, conversationID string) (store.ContactGiven, error) {
	var g store.ContactGiven
	var ms int64
	err := s.queryRow(ctx, `SELECT given_at, language FROM visitor_contacts WHERE conversation_id = ?`, conversationID).Scan(&ms, &g.Lang)
	if err == sql.ErrNoRows {
		return g, nil
	}
	if err != nil {
		return g, fmt.Errorf("visitor contact: %w", err)
	}
	g.At = fromMillis(ms)
	return g, nil
}

func (s *Store) timeOf(ctx context.Context, q, id string) (time.Time, error) {
	var ms int64
	err := s.queryRow(ctx, q, id).Scan(&ms)
	if err == sql.ErrNoRows {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return fromMillis(ms), nil
}

func (s *Store) TouchVisitor(ctx context.Context, conversationID string, at time.Time) error {
	if err := store.CheckText(conversationID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO visitor_seen (conversation_id, seen_at)
			SELECT id, ? FROM conversations WHERE id = ?
			ON CONFLICT (conversation_id) DO UPDATE SET seen_at = max(seen_at, excluded.seen_at)`, millis(at), conversationID)
		return err
	})
	if err != nil {
		return fmt.Errorf("touch visitor: %w", err)
	}
	return nil
}

func (s *Store) VisitorPolledAt(ctx context.Context, conversationID string) (time.Time, error) {
	return s.timeOf(ctx, `SELECT seen_at FROM visitor_seen WHERE conversation_id = ?`, conversationID)
}

func (s *Store) SetWaitAlert(ctx context.Context, accountID, userID string, minutes int) error {
	if err := store.CheckText(accountID, userID); err != nil {
		return err
	}
	if minutes < 0 {
		return domain.Invalid("minutes must not be negative")
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM users WHERE id = ? AND account_id = ?`, userID, accountID).Scan(&one); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO wait_alerts (user_id, account_id, minutes) VALUES (?, ?, ?)
			ON CONFLICT (user_id) DO UPDATE SET minutes = excluded.minutes`, userID, accountID, minutes)
		return err
	})
	if err != nil {
		return fmt.Errorf("set wait alert: %w", err)
	}
	return nil
}

func (s *Store) WaitAlert(ctx context.Context, accountID, userID string) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT coalesce((SELECT minutes FROM wait_alerts WHERE user_id = u.id), 0)
		FROM users u WHERE u.id = ? AND u.account_id = ?`, userID, accountID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("wait alert: %w", notFound(err, domain.ErrNotFound))
	}
	return n, nil
}

func (s *Store) WaitAlerts(ctx context.Context, accountID string) ([]store.WaitAlert, error) {
	out, err := queryAll(ctx, s, func(sc scanner) (store.WaitAlert, error) {
		var a store.WaitAlert
		err := sc.Scan(&a.UserID, &a.Email, &a.Name, &a.Lang, &a.Minutes)
		return a, err
	}, `SELECT u.id, u.email, u.name, u.language, w.minutes FROM wait_alerts w
		JOIN users u ON u.id = w.user_id WHERE w.account_id = ? AND w.minutes > 0 ORDER BY u.id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("wait alerts: %w", err)
	}
	return out, nil
}

func (s *Store) SetRating(ctx context.Context, r store.Rating) error {
	if err := store.CheckText(r.ConversationID, r.Comment); err != nil {
		return err
	}
	if r.Rating < 1 || r.Rating > 5 {
		return domain.Invalid("rating must be from 1 to 5")
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO conversation_ratings (conversation_id, account_id, rating, comment, at)
			SELECT id, account_id, ?, ?, ? FROM conversations WHERE id = ?
			ON CONFLICT (conversation_id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, at = excluded.at`,
			r.Rating, r.Comment, millis(r.At), r.ConversationID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return notFound(sql.ErrNoRows, domain.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set rating: %w", err)
	}
	return nil
}

func (s *Store) Rating(ctx context.Context, conversationID string) (store.Rating, error) {
	r := store.Rating{ConversationID: conversationID}
	var at int64
	err := s.queryRow(ctx, `SELECT account_id, rating, comment, at FROM conversation_ratings WHERE conversation_id = ?`,
		conversationID).Scan(&r.AccountID, &r.Rating, &r.Comment, &at)
	if err != nil {
		return store.Rating{}, fmt.Errorf("rating: %w", notFound(err, domain.ErrNotFound))
	}
	r.At = fromMillis(at)
	return r, nil
}

func (s *Store) RatingStats(ctx context.Context, accountID string, from, to time.Time) (store.RatingStats, error) {
	rows, err := s.query(ctx, `SELECT rating, count(*) FROM conversation_ratings
		WHERE account_id = ? AND at >= ? AND at < ? GROUP BY rating`, accountID, millis(from), millis(to))
	if err != nil {
		return store.RatingStats{}, fmt.Errorf("rating stats: %w", err)
	}
	defer rows.Close()
	var st store.RatingStats
	for rows.Next() {
		var score, n int
		if err := rows.Scan(&score, &n); err != nil {
			return store.RatingStats{}, fmt.Errorf("rating stats: %w", err)
		}
		st.Add(score, n)
	}
	return st, rows.Err()
}
