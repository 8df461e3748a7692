// Package retention is the rule of per-account data retention (issue 18,
// privacy controls): an account keeps its conversations forever (0 days,
// the default) or for 1 to MaxDays days after their last message; a daily
// job (internal/jobs, kind retention_purge) deletes the older ones. The
// management API and the dashboard both read and set the setting here.
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"parley/internal/audit"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// MaxDays bounds the setting: ten years.
const MaxDays = 3650

// DefaultBatch is how many conversations one delete takes. Each batch is
// its own short transaction, so SQLite's single writer is held for one
// batch at a time and chats keep writing between batches.
const DefaultBatch = 500

// PurgeHour is the hour (UTC) of the daily purge.
const PurgeHour = 3

// Store is what the service uses of the store.
type Store interface {
	RetentionDays(ctx context.Context, accountID string) (int, error)
	SetRetentionDays(ctx context.Context, accountID string, days int) error
	RetainingAccounts(ctx context.Context) ([]store.AccountRetention, error)
	PurgeConversations(ctx context.Context, accountID string, before time.Time, limit int) (int, error)
}

// Service applies the retention rule.
type Service struct {
	Store Store
	// Audit records a changed setting (account.retention); nil records
	// nothing. The purge itself is not an actor's action and is not
	// recorded.
	Audit *audit.Service
	// Now is the clock; nil is time.Now. Tests inject theirs.
	Now func() time.Time
	// Batch is the size of one delete; 0 is DefaultBatch.
	Batch  int
	Logger *slog.Logger
}

// Setting is an account's retention as shown to owners.
type Setting struct {
	// Days: 0 keeps conversations forever.
	Days int
	// NextPurge is when the daily job runs next (whether or not it will
	// find anything of this account's to delete).
	NextPurge time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Get reads the account's setting.
func (s *Service) Get(ctx context.Context, accountID string) (Setting, error) {
	days, err := s.Store.RetentionDays(ctx, accountID)
	if err != nil {
		return Setting{}, err
	}
	return Setting{Days: days, NextPurge: NextPurge(s.now())}, nil
}

// Check says whether days is a valid setting.
func Check(days int) error {
	if days < 0 || days > MaxDays {
		return &domain.InvalidError{Msg: fmt.Sprintf("retention_days must be 0 (keep forever) or 1 to %d", MaxDays)}
	}
	return nil
}

// Set stores the account's setting after checking its bounds.
func (s *Service) Set(ctx context.Context, accountID string, days int) (Setting, error) {
	if err := Check(days); err != nil {
		return Setting{}, err
	}
	if err := s.Store.SetRetentionDays(ctx, accountID, days); err != nil {
		return Setting{}, err
	}
	s.Audit.Record(ctx, accountID, audit.AccountRetention, audit.Target("account", accountID))
	return Setting{Days: days, NextPurge: NextPurge(s.now())}, nil
}

// Cutoff is the time before which an account keeping days days deletes a
// conversation's last message.
func Cutoff(now time.Time, days int) time.Time {
	return now.Add(-time.Duration(days) * 24 * time.Hour)
}

// NextPurge is the first daily purge time (PurgeHour UTC) after t; it is
// also the job queue's schedule (jobs.Options.PurgeNext).
func NextPurge(t time.Time) time.Time {
	t = t.UTC()
	next := time.Date(t.Year(), t.Month(), t.Day(), PurgeHour, 0, 0, 0, time.UTC)
	if !next.After(t) {
		next = next.AddDate(0, 0, 1)
	}
	return next
}

// Purge deletes, for every account with a retention setting, the
// conversations whose last message is older than its days, in batches,
// and returns how many it deleted. It stops at ctx's end between batches.
func (s *Service) Purge(ctx context.Context) (int, error) {
	accounts, err := s.Store.RetainingAccounts(ctx)
	if err != nil {
		return 0, err
	}
	batch := s.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	now := s.now()
	total := 0
	for _, a := range accounts {
		if a.Days <= 0 {
			continue
		}
		cutoff := Cutoff(now, a.Days)
		for {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			n, err := s.Store.PurgeConversations(ctx, a.AccountID, cutoff, batch)
			if err != nil {
				return total, fmt.Errorf("retention: purge of account %s: %w", a.AccountID, err)
			}
			total += n
			if n < batch {
				break
			}
		}
	}
	if s.Logger != nil && total > 0 {
		s.Logger.Info("retention purge", "conversations", total, "accounts", len(accounts))
	}
	return total, nil
}

// Run is Purge for the job queue (jobs.Options.Purge).
func (s *Service) Run(ctx context.Context) error {
	_, err := s.Purge(ctx)
	return err
}
