package sqlite

import (
	"context"
	"fmt"
	"time"
)

// ConversationsCreated counts on the conversations_account index
// (account_id, created_at).
func (s *Store) ConversationsCreated(ctx context.Context, accountID string, from, to time.Time) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM conversations WHERE account_id = ? AND created_at >= ? AND created_at < ?`,
		accountID, millis(from), millis(to)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("conversations created: %w", err)
	}
	return n, nil
}
