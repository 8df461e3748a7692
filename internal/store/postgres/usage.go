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

// Usage reads one period's counters; a period without a row is zero usage.
func (s *Store) Usage(ctx context.Context, accountID, period string) (domain.Usage, error) {
	u := domain.Usage{Period: period}
	err := s.pool.QueryRow(ctx, `
		SELECT conversations, overage_conversations, overage_cents, prompt_tokens, completion_tokens
		FROM usage WHERE account_id = $1 AND period = $2`, accountID, period).
		Scan(&u.Conversations, &u.OverageConversations, &u.OverageCents, &u.Tokens.Prompt, &u.Tokens.Completion)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return domain.Usage{Period: period}, fmt.Errorf("usage: %w", dbErr(err))
	}
	return u, nil
}

// ConversationsPerDay counts conversations created in [from, to) by UTC
// day (store.Days).
func (s *Store) ConversationsPerDay(ctx context.Context, accountID string, from, to time.Time) ([]domain.DayCount, error) {
	days := store.Days(from, to)
	if len(days) == 0 {
		return days, nil
	}
	first := days[0].Day

	// The day index is the offset from first in whole days of 86400
	// seconds, computed from the instant rather than with date_trunc, which
	// would follow the session's TimeZone setting. created_at >= from >=
	// first, so the offset is never negative.
	rows, _ := s.pool.Query(ctx, `
		SELECT floor(extract(epoch FROM created_at - $1::timestamptz) / 86400)::bigint, count(*) FROM conversations
		WHERE account_id = $2 AND created_at >= $3 AND created_at < $4
		GROUP BY 1`,
		first, accountID, ms(from), ms(to))
	var i int64
	var n int
	_, err := pgx.ForEachRow(rows, []any{&i, &n}, func() error {
		store.CountDay(days, i, n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("conversations per day: %w", err)
	}
	return days, nil
}
