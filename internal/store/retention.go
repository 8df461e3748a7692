package store

import (
	"context"
	"time"
)

// Retention keeps an account's conversations only so long (issue 18,
// privacy controls). The rule (bounds, the cutoff, batches, the schedule)
// is internal/retention's; the store only reads, writes and deletes.
type Retention interface {
	// RetentionDays is the account's setting: 0 keeps conversations
	// forever. domain.ErrNotFound for an unknown account.
	RetentionDays(ctx context.Context, accountID string) (int, error)
	// SetRetentionDays stores the setting as given (the caller checks its
	// bounds). domain.ErrNotFound for an unknown account.
	SetRetentionDays(ctx context.Context, accountID string, days int) error
	// RetainingAccounts lists the accounts whose setting is not 0, by id.
	RetainingAccounts(ctx context.Context) ([]AccountRetention, error)
	// PurgeConversations deletes at most limit of the account's
	// conversations whose last message (or, without messages, whose start)
	// is before the cutoff, with their messages and so their token counts,
	// and says how many it deleted. Usage rows stay: a conversation that
	// happened is still billed. Each call is one short transaction, so a
	// caller deletes a large backlog in turns without holding the write
	// lock long.
	PurgeConversations(ctx context.Context, accountID string, before time.Time, limit int) (int, error)
}

// AccountRetention is one account's retention setting.
type AccountRetention struct {
	AccountID string
	Days      int
}
