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
	// ByMatch: a search's order, the newest matching message first (by
	// its seq). Not a filter's Order: a filter with a Search pages in it
	// whatever its Order, which then picks only a short search's window
	// (PageOrder; docs/store.md "The inbox search").
	ByMatch
)

// PageOrder is the order f's pages come in: ByMatch with a search, else
// f.Order.
func (f ConversationFilter) PageOrder() Order {
	if f.Search != "" {
		return ByMatch
	}
	return f.Order
}

// MatchNext is the cursor after a search's page whose last conversation
// is id, with its newest matching message seq.
func MatchNext(seq int64, id string) string {
	return Cursor{Order: ByMatch, Seq: seq, ID: id}.Encode()
}

// Check refuses an order the stores cannot page: an unknown one (ByMatch
// too: a search orders by it, a filter does not name it), or ByWaiting
// without the Waiting filter (a conversation that does not wait has no
// waiting_since).
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

// ByEachStatus says whether f's list is every status by activity, which
// a store reads a status at a time (EveryStatus, a short search's window).
func (f ConversationFilter) ByEachStatus() bool {
	return f.Status == "" && f.Order == ByActivity
}

// StatusArms are the filters of the queries a store reads f's list with:
// f itself, or, by each status, f for the open and f for the resolved.
func (f ConversationFilter) StatusArms() []ConversationFilter {
	if !f.ByEachStatus() {
		return []ConversationFilter{f}
	}
	open, resolved := f, f
	open.Status, resolved.Status = domain.StatusOpen, domain.StatusResolved
	return []ConversationFilter{open, resolved}
}

// EveryStatus pages f with list, a store's query of one status at a time,
// when f asks for every status by activity: no index holds every status
// in that order (each would be one more entry for every message to move,
// docs/benchmarks.md), so the open and the resolved conversations are
// read down their index each, up to a page, and merged. Any other filter
// is list's alone, and so is a search: its page is in match order, which
// the stores read whatever the status.
func EveryStatus(f ConversationFilter, list func(ConversationFilter) (ConversationPage, error)) (ConversationPage, error) {
	if !f.ByEachStatus() || f.Search != "" {
		return list(f)
	}
	if err := f.Check(); err != nil {
		return ConversationPage{}, err
	}
	var arms [2]ConversationPage
	more := false
	for i, one := range f.StatusArms() {
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

// Matches gathers a search's page from matching messages read newest
// first: each conversation once, at its first (newest) match, up to want
// of them. The stores read the matches in that order and stop when it is
// Full.
type Matches struct {
	want int
	seen map[string]bool
	list []Match
}

// Match is a conversation a search found, with its newest matching
// message.
type Match struct {
	Seq            int64
	ConversationID string
}

// NewMatches gathers up to want conversations.
func NewMatches(want int) *Matches {
	return &Matches{want: want, seen: map[string]bool{}}
}

// Add takes the match seq of conversation id unless the conversation has
// one already (a newer one: they come newest first), and reports whether
// the page is full.
func (m *Matches) Add(seq int64, id string) bool {
	if !m.seen[id] && len(m.list) < m.want {
		m.seen[id] = true
		m.list = append(m.list, Match{Seq: seq, ConversationID: id})
	}
	return m.Full()
}

// Full reports whether want conversations were found.
func (m *Matches) Full() bool { return len(m.list) >= m.want }

// Len is how many conversations were found.
func (m *Matches) Len() int { return len(m.list) }

// IDs are the conversations found, newest match first.
func (m *Matches) IDs() []string {
	ids := make([]string, len(m.list))
	for i, x := range m.list {
		ids[i] = x.ConversationID
	}
	return ids
}

// Page is the search's page of up to limit conversations, in match
// order, from convs (the found ones, read by id; one deleted meanwhile is
// left out), and the cursor after it when more were found.
func (m *Matches) Page(convs []domain.Conversation, limit int) ConversationPage {
	byID := make(map[string]domain.Conversation, len(convs))
	for _, c := range convs {
		byID[c.ID] = c
	}
	page := ConversationPage{Conversations: []domain.Conversation{}}
	var last Match
	for _, x := range m.list[:min(limit, len(m.list))] {
		if c, ok := byID[x.ConversationID]; ok {
			page.Conversations = append(page.Conversations, c)
		}
		last = x
	}
	if len(m.list) > limit {
		page.Next = MatchNext(last.Seq, last.ConversationID)
	}
	return page
}
