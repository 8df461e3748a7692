package store

import (
	"errors"
	"testing"
	"time"
)

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []Cursor{
		{CreatedAt: time.UnixMilli(1741608000123).UTC(), ID: "cv_x:y"},
		{CreatedAt: time.UnixMilli(0).UTC(), ID: "cv_0"},
	} {
		if got, err := DecodeCursor(c.Encode()); err != nil || got != c {
			t.Errorf("round trip of %+v = %+v, %v", c, got, err)
		}
	}
}

// A cursor Encode cannot have made is ErrBadCursor, including what a
// database would refuse as an argument (a time past year 9999, a NUL).
func TestBadCursors(t *testing.T) {
	t.Parallel()
	bad := []string{
		"garbage!",
		"",
		Cursor{CreatedAt: time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC), ID: "cv_x"}.Encode(),
		Cursor{CreatedAt: time.UnixMilli(0).UTC(), ID: "cv_\x00"}.Encode(),
		Cursor{CreatedAt: time.UnixMilli(0).UTC(), ID: "cv_\xff"}.Encode(),
		Cursor{CreatedAt: time.UnixMilli(0).UTC()}.Encode(), // no id
	}
	for _, s := range bad {
		if _, err := DecodeCursor(s); !errors.Is(err, ErrBadCursor) {
			t.Errorf("DecodeCursor(%q) = %v, want ErrBadCursor", s, err)
		}
	}
}
