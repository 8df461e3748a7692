package store

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Cursor is the position after the last conversation of a page: where
// Conversations goes on with ConversationFilter.Before. Both stores page on
// the keyset (created_at, id).
type Cursor struct {
	CreatedAt time.Time // at the stores' precision, UTC
	ID        string
}

// Encode makes the opaque Next string: base64url of "millis:id". Clients
// must not rely on its shape; it only has to come back unchanged.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt.UnixMilli(), 10) + ":" + c.ID))
}

// NextCursor is the cursor after conversation c, the last of a page.
func NextCursor(createdAt time.Time, id string) string {
	return Cursor{CreatedAt: createdAt, ID: id}.Encode()
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
	millis, id, ok := strings.Cut(string(raw), ":")
	if !ok || id == "" {
		return Cursor{}, ErrBadCursor
	}
	n, err := strconv.ParseInt(millis, 10, 64)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	t := time.UnixMilli(n).UTC()
	if t.Year() < 1 || t.Year() > 9999 || !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return Cursor{}, ErrBadCursor
	}
	return Cursor{CreatedAt: t, ID: id}, nil
}
