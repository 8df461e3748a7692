package sqlite

import (
	"time"

	"parley/internal/store"
)

// handOffSet is the SET clause of a write that hands conversations to a
// person (a takeover, an assignment, a wait for one): the first handoff's
// time stays (domain.Conversation.HandOff), and the outcome becomes what
// it is once handed off, by whether the visitor asked
// (store.HandedOffOutcomes). Its parameters are handOffArgs.
const handOffSet = `handed_at = coalesce(handed_at, ?), outcome = CASE WHEN asked THEN ? ELSE ? END`

// handOffArgs are handOffSet's parameters for a handoff at at.
func handOffArgs(at time.Time) []any {
	asked, notAsked := store.HandedOffOutcomes()
	return []any{millis(at), string(asked), string(notAsked)}
}
