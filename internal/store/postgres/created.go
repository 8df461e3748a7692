package postgres

import (
	"context"
	"fmt"
	"time"
)

// ConversationsCreated counts on the conversations_account index
// (account_id, created_at).
func (s *Store) ConversationsCreated(ctx context.Context, accountID string, from, to time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM conversations WHERE account_id = $1 AND created_at >= $2 AND created_at < $3`,
		accountID, ms(from), ms(to)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("conversations created: %w", dbErr(err))
	}
	return n, nil
}
