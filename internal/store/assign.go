package store

import (
	"context"
	"time"

	"parley/internal/domain"
)

// Desk is what the operator desk (issue 19) stores besides the
// conversations: their status, assignment by an owner and by auto-assign,
// the operators' presence and the account's assignment settings.
type Desk interface {
	// SetStatus opens or resolves a conversation and reports whether that
	// changed. Resolving also ends a wait for a human.
	SetStatus(ctx context.Context, conversationID string, s domain.Status) (changed bool, err error)
	// Assign hands the conversation to a user whatever it was (an owner's
	// choice): human mode, no wait, the user as assignee. It returns the
	// conversation after the write.
	Assign(ctx context.Context, conversationID, userID, userName string) (domain.Conversation, error)
	// AutoAssign hands a conversation that still waits (AI mode, waiting,
	// open) to the user, only while the user holds fewer than capacity
	// open human conversations (0: no cap), and records the time as the
	// user's last assignment. Both conditions are checked in the write
	// that assigns, so instances assigning at once give each conversation
	// to one operator and keep each operator within the cap.
	AutoAssign(ctx context.Context, conversationID, userID, userName string, capacity int, at time.Time) (AssignOutcome, error)
	// Heartbeat records that the user's dashboard is open at the time and
	// returns their presence as it was before (zero LastSeen: never seen).
	Heartbeat(ctx context.Context, accountID, userID string, at time.Time) (Presence, error)
	// SetAway sets the user's away flag (a row is made if none, seen at).
	SetAway(ctx context.Context, accountID, userID string, away bool, at time.Time) error
	// Presences are the account's users who have a presence row, with
	// their names and how many open human conversations each holds.
	Presences(ctx context.Context, accountID string) ([]Presence, error)
	DeskSettings(ctx context.Context, accountID string) (DeskSettings, error)
	SetDeskSettings(ctx context.Context, accountID string, d DeskSettings) error
}

// AssignOutcome is what AutoAssign did.
type AssignOutcome int

const (
	Assigned     AssignOutcome = iota // the conversation is the user's now
	NotWaiting                        // it no longer waits (taken, released, resolved, gone)
	OperatorFull                      // the user is at the cap
)

// Presence is one operator's presence.
type Presence struct {
	UserID       string
	Name         string // the user's name, else their email
	LastSeen     time.Time
	Away         bool
	LastAssigned time.Time // zero: never auto-assigned
	Open         int       // open human conversations assigned to them
}

// Online is whether the presence counts as online at now: seen within
// PresenceWindow and not away.
func (p Presence) Online(now time.Time) bool {
	return !p.Away && !p.LastSeen.IsZero() && now.Sub(p.LastSeen) <= PresenceWindow
}

// PresenceWindow is how long after their last heartbeat an operator is
// still online.
const PresenceWindow = 60 * time.Second

// DeskSettings are an account's assignment settings.
type DeskSettings struct {
	AutoAssign bool // give waiting conversations to online operators, round-robin
	Cap        int  // most open conversations per operator for auto-assign; 0: no cap
}

// MaxAssignCap bounds DeskSettings.Cap.
const MaxAssignCap = 1000

// Check validates the settings.
func (d DeskSettings) Check() error {
	if d.Cap < 0 || d.Cap > MaxAssignCap {
		return domain.Invalid("cap must be between 0 and 1000")
	}
	return nil
}
