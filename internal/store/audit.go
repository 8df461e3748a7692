package store

import (
	"context"
	"time"

	"parley/internal/domain"
)

// AuditLog is each account's log of who did what (issue 18): takeovers,
// replies, exports, key rotations, settings, sign-ins. Package audit
// decides what is written and when; the stores only keep the rows.
//
// Entries are numbered by the store as they are written (Seq), and listed
// newest first down that number, so a page never skips or repeats an
// entry written meanwhile.
type AuditLog interface {
	// AddAuditEntry writes e and, in the same write, deletes the
	// account's entries older than keepAfter (zero: none), so the log of
	// an account is bounded in time without a job of its own. It returns e
	// with its Seq and At as stored.
	AddAuditEntry(ctx context.Context, e AuditEntry, keepAfter time.Time) (AuditEntry, error)
	// AuditEntries lists the account's entries newest first: at most
	// f.Limit (0 or less: AuditPageSize; at most MaxAuditPageSize+1, so a
	// caller can ask one more than a page to tell whether more exist) with Seq < f.Before (0: from
	// the newest), of the action f.Action when it is set. Another
	// account's entries are never in it.
	AuditEntries(ctx context.Context, accountID string, f AuditFilter) ([]AuditEntry, error)
	// APITokenByHash is the token with this hash (without the hash), so
	// the audit log can name the token an API request came with;
	// domain.ErrNotFound when none.
	APITokenByHash(ctx context.Context, tokenHash []byte) (domain.APIToken, error)
}

// AuditEntry is one row of the audit log. Actor is what is shown (a
// user's email, an API token's name); ActorType and ActorID say what it
// is. Target names the object as "kind:id" ("conversation:cv_1").
type AuditEntry struct {
	Seq       int64
	AccountID string
	At        time.Time
	ActorType string
	ActorID   string
	Actor     string
	IP        string
	Action    string
	Target    string
}

// AuditFilter pages the audit log.
type AuditFilter struct {
	Before int64 // entries with Seq < Before; 0: from the newest
	Limit  int
	Action string // "": every action
}

// Audit page sizes: the default and the most one page holds.
const (
	AuditPageSize    = 50
	MaxAuditPageSize = 200
)

// AuditLimit clamps a requested page size: 0 or less is the default,
// more than MaxAuditPageSize is MaxAuditPageSize.
func AuditLimit(n int) int {
	switch {
	case n <= 0:
		return AuditPageSize
	case n > MaxAuditPageSize:
		return MaxAuditPageSize
	}
	return n
}

// AuditQueryLimit is what the stores read for a requested limit: one
// more than the largest page is allowed.
func AuditQueryLimit(n int) int {
	if n > MaxAuditPageSize {
		return MaxAuditPageSize + 1
	}
	return AuditLimit(n)
}
