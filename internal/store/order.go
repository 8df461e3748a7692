package store

import (
	"time"

	"parley/internal/domain"
)

// Order is the order Conversations pages in. Each is a keyset on a time
// and the id, which every store reads down an index of its own, so a page
// costs the same however deep it is.
type Order uint8

const (
	// ByCreated: newest first by start (created_at): the management API's
	// order, and the one a conversation never leaves.
	ByCreated Order = iota
	// ByActivity: latest activity first (last_activity_at, see
	// domain.Conversation.LastActivityAt): the desk's inbox. A conversation
	// that gets a message moves to the front.
	ByActivity
	// ByWaiting: longest waiting first (waiting_since, oldest first): the
	// queue of conversations waiting for a human. Only with Waiting true.
	ByWaiting
)

// Check refuses an order the stores cannot page: an unknown one, or
// ByWaiting without the Waiting filter (a conversation that does not wait
// has no waiting_since).
func (f ConversationFilter) Check() error {
	switch f.Order {
	case ByCreated, ByActivity:
		return nil
	case ByWaiting:
		if f.Waiting != nil && *f.Waiting {
			return nil
		}
		return domain.Invalid("the waiting order needs the waiting filter")
	}
	return domain.Invalid("unknown order")
}

// Key is the time conversation c is ordered by in o.
func (o Order) Key(c domain.Conversation) time.Time {
	switch o {
	case ByActivity:
		return c.LastActivityAt
	case ByWaiting:
		return c.WaitingSince
	}
	return c.CreatedAt
}

// Next is the cursor after conversation c, the last of a page in o.
func (o Order) Next(c domain.Conversation) string {
	return Cursor{Order: o, At: o.Key(c), ID: c.ID}.Encode()
}
