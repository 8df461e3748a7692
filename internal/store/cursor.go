package store

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Cursor is the position after the last conversation of a page: where
// Conversations goes on with ConversationFilter.Before. Both stores page on
// the keyset (At, ID) of the cursor's Order: (created_at, id),
// (last_activity_at, id) or (waiting_since, id); a search's (ByMatch) on
// Seq, the conversation's newest matching message.
type Cursor struct {
	Order Order
	At    time.Time // the order's time, at the stores' precision, UTC; zero in ByMatch
	Seq   int64     // ByMatch only: the page's last newest match (a message's seq, > 0)
	ID    string
}

// orderTags name an order in a cursor. ByCreated has none, so that the
// cursors made before the other orders existed ("millis:id") stay valid.
var orderTags = map[Order]string{ByCreated: "", ByActivity: "a", ByWaiting: "w", ByMatch: "m"}

// Encode makes the opaque Next string: base64url of the order's tag and
// "millis:id" ("seq:id" in ByMatch). Clients must not rely on its shape;
// it only has to come back unchanged.
func (c Cursor) Encode() string {
	n := c.At.UnixMilli()
	if c.Order == ByMatch {
		n = c.Seq
	}
	return base64.RawURLEncoding.EncodeToString([]byte(orderTags[c.Order] + strconv.FormatInt(n, 10) + ":" + c.ID))
}

// DecodeCursor returns ErrBadCursor for anything Encode cannot have made,
// so a tampered cursor is a client error, not a missing row. That includes
// what a database would refuse as a query argument (a time outside
// PostgreSQL's timestamptz range, a NUL or invalid UTF-8 in a text): it
// would fail as a server error rather than a bad request.
func DecodeCursor(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	var c Cursor
	text := string(raw)
	for o, tag := range orderTags {
		if tag != "" && strings.HasPrefix(text, tag) {
			c.Order, text = o, text[len(tag):]
		}
	}
	millis, id, ok := strings.Cut(text, ":")
	if !ok || id == "" {
		return Cursor{}, ErrBadCursor
	}
	n, err := strconv.ParseInt(millis, 10, 64)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	if !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return Cursor{}, ErrBadCursor
	}
	if c.Order == ByMatch {
		if n <= 0 {
			return Cursor{}, ErrBadCursor
		}
		c.Seq, c.ID = n, id
		return c, nil
	}
	t := time.UnixMilli(n).UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return Cursor{}, ErrBadCursor
	}
	c.At, c.ID = t, id
	return c, nil
}

// PageCursor decodes f.Before for a store: nil on the first page, and
// ErrBadCursor for a cursor of another order than f's page (a link kept
// from a list in another order, or from the list without the search), as
// for one the store cannot have made.
func (f ConversationFilter) PageCursor() (*Cursor, error) {
	if f.Before == "" {
		return nil, nil
	}
	c, err := DecodeCursor(f.Before)
	if err != nil {
		return nil, err
	}
	if c.Order != f.PageOrder() {
		return nil, ErrBadCursor
	}
	return &c, nil
}

// MatchesBelow checks f, which has a search, and returns the seq below
// which its page's matches lie: the cursor's newest match on a later page,
// math.MaxInt64 on the first.
func (f ConversationFilter) MatchesBelow() (int64, error) {
	if err := f.Check(); err != nil {
		return 0, err
	}
	cur, err := f.PageCursor()
	if err != nil || cur == nil {
		return math.MaxInt64, err
	}
	return cur.Seq, nil
}
