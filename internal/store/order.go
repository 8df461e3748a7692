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

// EveryStatus pages f with list, a store's query of one status at a time,
// when f asks for every status by activity: no index holds every status
// in that order (each would be one more entry for every message to move,
// docs/benchmarks.md), so the open and the resolved conversations are
// read down their index each, up to a page, and merged. Any other filter
// is list's alone.
func EveryStatus(f ConversationFilter, list func(ConversationFilter) (ConversationPage, error)) (ConversationPage, error) {
	if f.Status != "" || f.Order != ByActivity {
		return list(f)
	}
	if err := f.Check(); err != nil {
		return ConversationPage{}, err
	}
	var arms [2]ConversationPage
	more := false
	for i, st := range []domain.Status{domain.StatusOpen, domain.StatusResolved} {
		one := f
		one.Status = st
		p, err := list(one)
		if err != nil {
			return ConversationPage{}, err
		}
		arms[i], more = p, more || p.Next != ""
	}
	all := make([]domain.Conversation, 0, len(arms[0].Conversations)+len(arms[1].Conversations))
	a, b := arms[0].Conversations, arms[1].Conversations
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && laterActivity(a[0], b[0]) {
			all, a = append(all, a[0]), a[1:]
		} else {
			all, b = append(all, b[0]), b[1:]
		}
	}
	page := ConversationPage{Conversations: all}
	if limit := f.PageSize(); len(all) > limit {
		page.Conversations, more = all[:limit], true
	}
	if more {
		page.Next = f.Order.Next(page.Conversations[len(page.Conversations)-1])
	}
	return page, nil
}

// laterActivity reports whether a comes before b by latest activity (the
// id breaking ties, as the stores' keyset does).
func laterActivity(a, b domain.Conversation) bool {
	if !a.LastActivityAt.Equal(b.LastActivityAt) {
		return a.LastActivityAt.After(b.LastActivityAt)
	}
	return a.ID > b.ID
}
