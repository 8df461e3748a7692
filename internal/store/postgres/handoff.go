package postgres

import (
	"fmt"
	"time"

	"parley/internal/store"
)

// handOffSet is the SET clause of a write that hands conversations to a
// person (a takeover, an assignment, a wait for one), its parameters from
// $n on (handOffArgs): the first handoff's time stays
// (domain.Conversation.HandOff), and the outcome becomes what it is once
// handed off, by whether the visitor asked (store.HandedOffOutcomes).
func handOffSet(n int) string {
	return fmt.Sprintf(`handed_at = coalesce(handed_at, $%d), outcome = CASE WHEN asked THEN $%d ELSE $%d END`, n, n+1, n+2)
}

// handOffArgs are handOffSet's parameters for a handoff at at.
func handOffArgs(at time.Time) []any {
	asked, notAsked := store.HandedOffOutcomes()
	return []any{at, string(asked), string(notAsked)}
}
