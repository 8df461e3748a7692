package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/store"
)

// SetVisitorContext upserts the row while the conversation exists.
func (s *Store) SetVisitorContext(ctx context.Context, conversationID string, v store.VisitorContext) error {
	if err := store.CheckText(conversationID, v.UserAgent, v.Language, v.TimeZone, v.Referrer); err != nil {
		return err
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO conversation_visitor (conversation_id, user_agent, language, time_zone, referrer)
			SELECT id, $2, $3, $4, $5 FROM conversations WHERE id = $1
			ON CONFLICT (conversation_id) DO UPDATE SET user_agent = excluded.user_agent,
				language = excluded.language, time_zone = excluded.time_zone, referrer = excluded.referrer`,
			conversationID, v.UserAgent, v.Language, v.TimeZone, v.Referrer)
		return err
	})
	if err != nil {
		return fmt.Errorf("set visitor context: %w", err)
	}
	return nil
}

// RecordPage appends the page unless it is the latest, then trims. The
// conversation's row is locked first, so two pages recorded at once get
// different numbers.
func (s *Store) RecordPage(ctx context.Context, conversationID, url string, at time.Time) error {
	if err := store.CheckText(conversationID, url); err != nil {
		return err
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		var id string
		err := tx.QueryRow(ctx, `SELECT id FROM conversations WHERE id = $1 FOR UPDATE`, conversationID).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var last int64
		var lastURL string
		err = tx.QueryRow(ctx, `SELECT n, url FROM conversation_pages WHERE conversation_id = $1 ORDER BY n DESC LIMIT 1`,
			conversationID).Scan(&last, &lastURL)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case lastURL == url:
			return nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO conversation_pages (conversation_id, n, url, at) VALUES ($1, $2, $3, $4)`,
			conversationID, last+1, url, at.UTC()); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM conversation_pages WHERE conversation_id = $1 AND n <= $2`,
			conversationID, last+1-store.MaxPageHistory)
		return err
	})
	if err != nil {
		return fmt.Errorf("record page: %w", dbErr(err))
	}
	return nil
}

func (s *Store) VisitorContext(ctx context.Context, conversationID string) (store.VisitorContext, error) {
	var v store.VisitorContext
	if err := store.CheckText(conversationID); err != nil {
		return v, err
	}
	err := s.pool.QueryRow(ctx, `SELECT user_agent, language, time_zone, referrer FROM conversation_visitor WHERE conversation_id = $1`,
		conversationID).Scan(&v.UserAgent, &v.Language, &v.TimeZone, &v.Referrer)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return v, fmt.Errorf("visitor context: %w", dbErr(err))
	}
	rows, _ := s.pool.Query(ctx, `SELECT url, at FROM conversation_pages WHERE conversation_id = $1 ORDER BY n DESC LIMIT $2`,
		conversationID, store.MaxPageHistory)
	pages, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.PageView, error) {
		var p store.PageView
		err := row.Scan(&p.URL, &p.At)
		p.At = p.At.UTC()
		return p, err
	})
	if err != nil {
		return v, fmt.Errorf("visitor pages: %w", dbErr(err))
	}
	if len(pages) > 0 {
		v.Pages = pages
	}
	return v, nil
}

func (s *Store) VisitorSeen(ctx context.Context, accountID, visitorID string) (time.Time, int, error) {
	if err := store.CheckText(accountID, visitorID); err != nil {
		return time.Time{}, 0, err
	}
	var first *time.Time
	var n int
	err := s.pool.QueryRow(ctx, `SELECT min(created_at), count(*) FROM conversations WHERE account_id = $1 AND visitor_id = $2`,
		accountID, visitorID).Scan(&first, &n)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("visitor seen: %w", dbErr(err))
	}
	if first == nil {
		return time.Time{}, 0, nil
	}
	return first.UTC(), n, nil
}

// MarkRead upserts the mark while both the user and the conversation
// exist, never moving it back.
func (s *Store) MarkRead(ctx context.Context, userID, conversationID string, seq int64) error {
	if err := store.CheckText(userID, conversationID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO conversation_reads (user_id, conversation_id, seq)
			SELECT u.id, c.id, $3 FROM users u, conversations c WHERE u.id = $1 AND c.id = $2
			ON CONFLICT (user_id, conversation_id) DO UPDATE SET seq = greatest(conversation_reads.seq, excluded.seq)`,
			userID, conversationID, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark read: %w", dbErr(err))
	}
	return nil
}

// UnreadCounts reads one page of the inbox's counts in one query, through
// messages_conversation (conversation_id, seq).
func (s *Store) UnreadCounts(ctx context.Context, userID string, conversationIDs []string) (map[string]int, error) {
	out := map[string]int{}
	if len(conversationIDs) == 0 {
		return out, nil
	}
	if err := store.CheckText(userID); err != nil {
		return nil, err
	}
	if err := store.CheckText(conversationIDs...); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT m.conversation_id, count(*) FROM messages m
		LEFT JOIN conversation_reads r ON r.conversation_id = m.conversation_id AND r.user_id = $1
		WHERE m.conversation_id = ANY($2) AND m.role = 'visitor' AND m.seq > coalesce(r.seq, 0)
		GROUP BY m.conversation_id`, userID, conversationIDs)
	var id string
	var n int
	_, err := pgx.ForEachRow(rows, []any{&id, &n}, func() error {
		out[id] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("unread counts: %w", dbErr(err))
	}
	return out, nil
}
