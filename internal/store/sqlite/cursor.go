package sqlite

import (
	"encoding/base64"
	"parley/internal/store"
	"strconv"
	"strings"
)

// ErrBadCursor is returned (wrapped) by Conversations for a Before cursor it
// did not make. It is not domain.ErrNotFound: the caller sent a bad request.
var ErrBadCursor = store.ErrBadCursor

// cursor is the position after the last conversation of a page.
type cursor struct {
	createdAt int64 // unix milliseconds
	id        string
}

// encodeCursor makes the opaque Next string: base64url of "millis:id".
// Clients must not rely on its shape; it only has to come back unchanged.
func encodeCursor(c cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.createdAt, 10) + ":" + c.id))
}

func decodeCursor(s string) (cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, ErrBadCursor
	}
	ms, id, ok := strings.Cut(string(raw), ":")
	if !ok || id == "" {
		return cursor{}, ErrBadCursor
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return cursor{}, ErrBadCursor
	}
	return cursor{createdAt: n, id: id}, nil
}
