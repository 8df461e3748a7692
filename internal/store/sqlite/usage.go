package sqlite

import (
	"context"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// Usage reads one period's counters; a period without a row is zero usage.
func (s *Store) Usage(ctx context.Context, accountID, period string) (domain.Usage, error) {
	u := domain.Usage{Period: period}
	rows, err := s.query(ctx, `
		SELECT conversations, overage_conversations, overage_cents, prompt_tokens, completion_tokens
		FROM usage WHERE account_id = ? AND period = ?`, accountID, period)
	if err != nil {
		return u, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&u.Conversations, &u.OverageConversations, &u.OverageCents, &u.Tokens.Prompt, &u.Tokens.Completion); err != nil {
			return domain.Usage{Period: period}, err
		}
	}
	return u, rows.Err()
}

// ConversationsPerDay counts conversations created in [from, to) by UTC
// day (store.Days).
func (s *Store) ConversationsPerDay(ctx context.Context, accountID string, from, to time.Time) ([]domain.DayCount, error) {
	days := store.Days(from, to)
	if len(days) == 0 {
		return days, nil
	}
	first := days[0].Day

	// Offsets from first are never negative (created_at >= from >= first),
	// so integer division floors and yields the index into days.
	rows, err := s.query(ctx, `
		SELECT (created_at - ?) / ?, count(*) FROM conversations
		WHERE account_id = ? AND created_at >= ? AND created_at < ?
		GROUP BY 1`,
		millis(first), store.UTCDay.Milliseconds(), accountID, millis(from), millis(to))
	if err != nil {
		return nil, fmt.Errorf("conversations per day: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int64
		var n int
		if err := rows.Scan(&i, &n); err != nil {
			return nil, err
		}
		store.CountDay(days, i, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return days, nil
}
