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

// The Offline store (issue 19): see store.Offline.

func (s *Store) BusinessHours(ctx context.Context, accountID string) (string, error) {
	var h string
	err := s.pool.QueryRow(ctx, `SELECT hours FROM business_hours WHERE account_id = $1`, accountID).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("business hours: %w", dbErr(err))
	}
	return h, nil
}

func (s *Store) SetBusinessHours(ctx context.Context, accountID, hoursJSON string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO business_hours (account_id, hours) VALUES ($1, $2)
		ON CONFLICT (account_id) DO UPDATE SET hours = excluded.hours`, accountID, hoursJSON)
	if err != nil {
		return fmt.Errorf("set business hours: %w", dbErr(err))
	}
	return nil
}

func (s *Store) SetVisitorContact(ctx context.Context, conversationID string, c store.NewContact) error {
	err := s.write(ctx, func(tx pgx.Tx) error {
		var verified bool
		if err := tx.QueryRow(ctx, `SELECT verified FROM conversations WHERE id = $1 FOR UPDATE`, conversationID).Scan(&verified); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if !verified {
			if _, err := tx.Exec(ctx, `UPDATE conversations SET visitor_name = $1, visitor_email = $2 WHERE id = $3`,
				c.Name, c.Email, conversationID); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO visitor_contacts (conversation_id, given_at, language) VALUES ($1, $2, $3)
			ON CONFLICT (conversation_id) DO UPDATE SET given_at = excluded.given_at, language = excluded.language`,
			conversationID, c.At, c.Lang)
		return err
	})
	if err != nil {
		return fmt.Errorf("set visitor contact: %w", dbErr(err))
	}
	return nil
}

func (s *Store) timeOf(ctx context.Context, q, id string) (time.Time, error) {
	var t time.Time
	err := s.pool.QueryRow(ctx, q, id).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, dbErr(err)
	}
	return t.UTC(), nil
}

func (s *Store) VisitorContact(ctx context.Context, conversationID string) (store.ContactGiven, error) {
	var g store.ContactGiven
	err := s.pool.QueryRow(ctx, `SELECT given_at, language FROM visitor_contacts WHERE conversation_id = $1`, conversationID).Scan(&g.At, &g.Lang)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ContactGiven{}, nil
	}
	if err != nil {
		return store.ContactGiven{}, fmt.Errorf("visitor contact: %w", dbErr(err))
	}
	g.At = g.At.UTC()
	return g, nil
}

func (s *Store) TouchVisitor(ctx context.Context, conversationID string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO visitor_seen (conversation_id, seen_at)
		SELECT id, $1 FROM conversations WHERE id = $2
		ON CONFLICT (conversation_id) DO UPDATE SET seen_at = greatest(visitor_seen.seen_at, excluded.seen_at)`, at, conversationID)
	if err != nil {
		return fmt.Errorf("touch visitor: %w", dbErr(err))
	}
	return nil
}

func (s *Store) VisitorPolledAt(ctx context.Context, conversationID string) (time.Time, error) {
	return s.timeOf(ctx, `SELECT seen_at FROM visitor_seen WHERE conversation_id = $1`, conversationID)
}

func (s *Store) SetWaitAlert(ctx context.Context, accountID, userID string, minutes int) error {
	if minutes < 0 {
		return domain.Invalid("minutes must not be negative")
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO wait_alerts (user_id, account_id, minutes)
		SELECT id, account_id, $3 FROM users WHERE id = $1 AND account_id = $2
		ON CONFLICT (user_id) DO UPDATE SET minutes = excluded.minutes`, userID, accountID, minutes)
	if err != nil {
		return fmt.Errorf("set wait alert: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set wait alert: %w", domain.ErrNotFound)
	}
	return nil
}

func (s *Store) WaitAlert(ctx context.Context, accountID, userID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT minutes FROM wait_alerts WHERE user_id = u.id), 0)
		FROM users u WHERE u.id = $1 AND u.account_id = $2`, userID, accountID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("wait alert: %w", notFound(err, domain.ErrNotFound))
	}
	return n, nil
}

func (s *Store) WaitAlerts(ctx context.Context, accountID string) ([]store.WaitAlert, error) {
	rows, _ := s.pool.Query(ctx, `SELECT u.id, u.email, u.name, u.language, w.minutes FROM wait_alerts w
		JOIN users u ON u.id = w.user_id WHERE w.account_id = $1 AND w.minutes > 0 ORDER BY u.id`, accountID)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.WaitAlert, error) {
		var a store.WaitAlert
		err := row.Scan(&a.UserID, &a.Email, &a.Name, &a.Lang, &a.Minutes)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("wait alerts: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) SetRating(ctx context.Context, r store.Rating) error {
	if r.Rating < 1 || r.Rating > 5 {
		return domain.Invalid("rating must be from 1 to 5")
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO conversation_ratings (conversation_id, account_id, rating, comment, at)
		SELECT id, account_id, $1, $2, $3 FROM conversations WHERE id = $4
		ON CONFLICT (conversation_id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, at = excluded.at`,
		r.Rating, r.Comment, r.At, r.ConversationID)
	if err != nil {
		return fmt.Errorf("set rating: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set rating: %w", domain.ErrNotFound)
	}
	return nil
}

func (s *Store) Rating(ctx context.Context, conversationID string) (store.Rating, error) {
	r := store.Rating{ConversationID: conversationID}
	err := s.pool.QueryRow(ctx, `SELECT account_id, rating, comment, at FROM conversation_ratings WHERE conversation_id = $1`,
		conversationID).Scan(&r.AccountID, &r.Rating, &r.Comment, &r.At)
	if err != nil {
		return store.Rating{}, fmt.Errorf("rating: %w", notFound(err, domain.ErrNotFound))
	}
	r.At = r.At.UTC()
	return r, nil
}

func (s *Store) RatingStats(ctx context.Context, accountID string, from, to time.Time) (store.RatingStats, error) {
	rows, err := s.pool.Query(ctx, `SELECT rating, count(*) FROM conversation_ratings
		WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY rating`, accountID, from, to)
	if err != nil {
		return store.RatingStats{}, fmt.Errorf("rating stats: %w", dbErr(err))
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
