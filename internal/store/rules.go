package store

import (
	"errors"
	"fmt"
	"time"

	"parley/internal/domain"
)

// The rules the stores enforce, written once. Each database package reads
// what a rule needs inside the transaction that writes (locking what it
// must, so the decision holds however many requests race) and then asks
// the rule here: the SQL stays in the stores, the decision and its error
// here, as quota.Admit does for conversations and NewMessage.Fits for
// messages.

// ErrLastOwner is DeleteUser's answer for the last owner of an account:
// an account nobody can administer must never exist. It is an
// ErrConflict, which the dashboard shows as such.
var ErrLastOwner = fmt.Errorf("the last owner of an account cannot be deleted: %w", domain.ErrConflict)

// CanDeleteUser decides whether a user with role may be deleted from an
// account that has owners owners (this user included, when it is one),
// counted in the transaction that deletes.
func CanDeleteUser(role domain.UserRole, owners int) error {
	if role == domain.UserOwner && owners <= 1 {
		return ErrLastOwner
	}
	return nil
}

// CheckRole refuses a role a user cannot have.
func CheckRole(r domain.UserRole) error {
	if r != domain.UserOwner && r != domain.UserOperator {
		return domain.Invalid(fmt.Sprintf("unknown user role %q", r))
	}
	return nil
}

// errUnknownMode is SetMode's answer for a mode that does not exist.
var errUnknownMode = errors.New("unknown mode")

// CheckMode refuses a handling mode that does not exist.
func CheckMode(m domain.Mode) error {
	if m != domain.ModeAI && m != domain.ModeHuman {
		return fmt.Errorf("%w %q", errUnknownMode, m)
	}
	return nil
}

// Admit decides whether an account that has agents agents may have this
// one too (MaxAgents 0: no bound), counted in the transaction that inserts
// it.
func (n NewAgent) Admit(agents int) error {
	if n.MaxAgents > 0 && agents >= n.MaxAgents {
		return &domain.AgentLimitError{Max: n.MaxAgents}
	}
	return nil
}

// CheckAddKnowledge decides whether entry e may join an agent's
// knowledge that measures was, under l.
func CheckAddKnowledge(l domain.KnowledgeLimits, was domain.KnowledgeSize, e domain.KnowledgeEntry) error {
	return l.Check(was, domain.KnowledgeSize{Items: was.Items + 1, Chars: was.Chars + domain.KnowledgeChars(e)})
}

// CheckUpdateKnowledge decides whether entry e may replace the entry of
// oldChars characters in an agent's knowledge that measures was, under l.
func CheckUpdateKnowledge(l domain.KnowledgeLimits, was domain.KnowledgeSize, oldChars int, e domain.KnowledgeEntry) error {
	return l.Check(was, domain.KnowledgeSize{Items: was.Items, Chars: was.Chars - oldChars + domain.KnowledgeChars(e)})
}

// NextVersion is an agent's UpdatedAt after a change at now: strictly
// later than prev, even within one millisecond, because UpdatedAt is the
// version that knowledge indexes are cached under.
func NextVersion(prev, now time.Time) time.Time {
	if !now.After(prev) {
		return prev.Add(time.Millisecond)
	}
	return now
}

// Check decides whether conversation c, holding count messages, takes
// message n: domain.ErrModeChanged when n requires another mode (Admits),
// domain.ErrConversationFull past the cap (Fits).
func (n NewMessage) Check(c domain.Conversation, count int) error {
	if !n.Admits(c) {
		return domain.ErrModeChanged
	}
	if !n.Fits(count) {
		return domain.ErrConversationFull
	}
	return nil
}
