package sqlite

import (
	"context"

	"parley/internal/domain"
)

// Usage reads one period's counters; a period without a row is zero usage.
func (s *Store) Usage(ctx context.Context, accountID, period string) (domain.Usage, error) {
	u := domain.Usage{Period: period}
	rows, err := s.r.QueryContext(ctx, `
		SELECT conversations, overage_conversations, overage_cents
		FROM usage WHERE account_id = ? AND period = ?`, accountID, period)
	if err != nil {
		return u, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&u.Conversations, &u.OverageConversations, &u.OverageCents); err != nil {
			return domain.Usage{Period: period}, err
		}
	}
	return u, rows.Err()
}
