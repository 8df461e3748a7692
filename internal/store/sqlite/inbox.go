package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/internal/store"
)

// SetVisitorContext upserts the row while the conversation exists.
func (s *Store) SetVisitorContext(ctx context.Context, conversationID string, v store.VisitorContext) error {
	if err := store.CheckText(conversationID, v.UserAgent, v.Language, v.TimeZone, v.Referrer); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(inWrite(ctx), `INSERT INTO conversation_visitor (conversation_id, user_agent, language, time_zone, referrer)
			SELECT id, ?, ?, ?, ? FROM conversations WHERE id = ?
			ON CONFLICT (conversation_id) DO UPDATE SET user_agent = excluded.user_agent,
				language = excluded.language, time_zone = excluded.time_zone, referrer = excluded.referrer`,
			v.UserAgent, v.Language, v.TimeZone, v.Referrer, conversationID)
		return err
	})
	if err != nil {
		return fmt.Errorf("set visitor context: %w", err)
	}
	return nil
}

// RecordPage appends the page unless it is the latest, then trims.
func (s *Store) RecordPage(ctx context.Context, conversationID, url string, at time.Time) error {
	if err := store.CheckText(conversationID, url); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		wctx := inWrite(ctx)
		var last int64
		var lastURL string
		err := tx.QueryRowContext(wctx, `SELECT n, url FROM conversation_pages WHERE conversation_id = ? ORDER BY n DESC LIMIT 1`,
			conversationID).Scan(&last, &lastURL)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case lastURL == url:
			return nil
		}
		if _, err := tx.ExecContext(wctx, `INSERT INTO conversation_pages (conversation_id, n, url, at)
			SELECT id, ?, ?, ? FROM conversations WHERE id = ?`, last+1, url, millis(at), conversationID); err != nil {
			return err
		}
		_, err = tx.ExecContext(wctx, `DELETE FROM conversation_pages WHERE conversation_id = ? AND n <= ?`,
			conversationID, last+1-store.MaxPageHistory)
		return err
	})
	if err != nil {
		return fmt.Errorf("record page: %w", err)
	}
	return nil
}

func (s *Store) VisitorContext(ctx context.Context, conversationID string) (store.VisitorContext, error) {
	var v store.VisitorContext
	if err := store.CheckText(conversationID); err != nil {
		return v, err
	}
	err := s.queryRow(ctx, `SELECT user_agent, language, time_zone, referrer FROM conversation_visitor WHERE conversation_id = ?`,
		conversationID).Scan(&v.UserAgent, &v.Language, &v.TimeZone, &v.Referrer)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("visitor context: %w", err)
	}
	rows, err := s.query(ctx, `SELECT url, at FROM conversation_pages WHERE conversation_id = ? ORDER BY n DESC LIMIT `+limitArg,
		conversationID, store.MaxPageHistory)
	if err != nil {
		return v, fmt.Errorf("visitor pages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p store.PageView
		var at int64
		if err := rows.Scan(&p.URL, &at); err != nil {
			return v, fmt.Errorf("visitor pages: %w", err)
		}
		p.At = fromMillis(at)
		v.Pages = append(v.Pages, p)
	}
	if err := rows.Err(); err != nil {
		return v, fmt.Errorf("visitor pages: %w", err)
	}
	return v, nil
}

func (s *Store) VisitorSeen(ctx context.Context, accountID, visitorID string) (time.Time, int, error) {
	if err := store.CheckText(accountID, visitorID); err != nil {
		return time.Time{}, 0, err
	}
	var first sql.NullInt64
	var n int
	err := s.queryRow(ctx, `SELECT min(created_at), count(*) FROM conversations WHERE account_id = ? AND visitor_id = ?`,
		accountID, visitorID).Scan(&first, &n)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("visitor seen: %w", err)
	}
	if !first.Valid {
		return time.Time{}, 0, nil
	}
	return fromMillis(first.Int64), n, nil
}

// MarkRead upserts the mark while both the user and the conversation
// exist, never moving it back.
func (s *Store) MarkRead(ctx context.Context, userID, conversationID string, seq int64) error {
	if err := store.CheckText(userID, conversationID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(inWrite(ctx), `INSERT INTO conversation_reads (user_id, conversation_id, seq)
			SELECT u.id, c.id, ? FROM users u, conversations c WHERE u.id = ? AND c.id = ?
			ON CONFLICT (user_id, conversation_id) DO UPDATE SET seq = max(seq, excluded.seq)`,
			seq, userID, conversationID)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark read: %w", err)
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
	args := []any{userID}
	for _, id := range conversationIDs {
		args = append(args, id)
	}
	if err := store.CheckText(userID); err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT m.conversation_id, count(*) FROM messages m
		LEFT JOIN conversation_reads r ON r.conversation_id = m.conversation_id AND r.user_id = ?
		WHERE m.conversation_id IN (?`+strings.Repeat(",?", len(conversationIDs)-1)+`)
			AND m.role = 'visitor' AND m.seq > coalesce(r.seq, 0)
		GROUP BY m.conversation_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("unread counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("unread counts: %w", err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("unread counts: %w", err)
	}
	return out, nil
}
