package postgres

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"parley/internal/store"
)

// cursor is the position after the last conversation of a page.
type cursor struct {
	createdAt time.Time // at millisecond precision, UTC
	id        string
}

// encodeCursor makes the opaque Next string: base64url of "millis:id".
// Clients must not rely on its shape; it only has to come back unchanged.
func encodeCursor(c cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.createdAt.UnixMilli(), 10) + ":" + c.id))
}

// decodeCursor returns store.ErrBadCursor for anything encodeCursor cannot
// have made, so a tampered cursor is a client error, not a missing row.
func decodeCursor(s string) (cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, store.ErrBadCursor
	}
	millis, id, ok := strings.Cut(string(raw), ":")
	if !ok || id == "" {
		return cursor{}, store.ErrBadCursor
	}
	n, err := strconv.ParseInt(millis, 10, 64)
	if err != nil {
		return cursor{}, store.ErrBadCursor
	}
	// What PostgreSQL would refuse as a query argument (a time outside
	// timestamptz's range, a NUL or invalid UTF-8 in a text) must not get
	// that far: it would fail as a server error rather than a bad request.
	t := time.UnixMilli(n).UTC()
	if t.Year() < 1 || t.Year() > 9999 || !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return cursor{}, store.ErrBadCursor
	}
	return cursor{createdAt: t, id: id}, nil
}
