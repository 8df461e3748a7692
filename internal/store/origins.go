package store

import (
	"context"
	"time"
)

// Origins remembers which sites (the Origin header) an agent's widget was
// used from, allowed or refused, so the dashboard can show the owner the
// origins seen recently next to the allowed-origins list (issue 18). The
// rows are bounded per agent: the MaxSeenOrigins most recent, none older
// than SeenOriginsKept. They go with their agent (ON DELETE CASCADE).
type Origins interface {
	// RecordOrigin adds o.Count to the origin's count and moves its last
	// time seen forward to o.LastSeen (never back), then drops the agent's
	// rows past the MaxSeenOrigins most recent and those last seen before
	// o.LastSeen - SeenOriginsKept, in one transaction. An agent that no
	// longer exists records nothing and is no error.
	RecordOrigin(ctx context.Context, o SeenOrigin) error
	// RecentOrigins lists the agent's origins last seen at or after since,
	// most recent first, at most MaxSeenOrigins. An agent of another
	// account, or none, has none.
	RecentOrigins(ctx context.Context, accountID, agentID string, since time.Time) ([]SeenOrigin, error)
}

// SeenOrigin is one origin an agent's widget was used from.
type SeenOrigin struct {
	AgentID  string
	Origin   string
	Count    int64     // widget requests counted from it
	LastSeen time.Time // the latest of them recorded
}

// Bounds of the origins kept per agent.
const (
	MaxSeenOrigins  = 20
	SeenOriginsKept = 30 * 24 * time.Hour
)
