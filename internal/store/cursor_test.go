package store

import (
	"errors"
	"testing"
	"time"
)

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []Cursor{
		{At: time.UnixMilli(1741608000123).UTC(), ID: "cv_x:y"},
		{At: time.UnixMilli(0).UTC(), ID: "cv_0"},
		{Order: ByActivity, At: time.UnixMilli(1741608000123).UTC(), ID: "cv_a"},
		{Order: ByWaiting, At: time.UnixMilli(-1).UTC(), ID: "cv_w"},
		{Order: ByMatch, Seq: 1 << 40, ID: "cv_m"},
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
		Cursor{At: time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC), ID: "cv_x"}.Encode(),
		Cursor{At: time.UnixMilli(0).UTC(), ID: "cv_\x00"}.Encode(),
		Cursor{At: time.UnixMilli(0).UTC(), ID: "cv_\xff"}.Encode(),
		Cursor{At: time.UnixMilli(0).UTC()}.Encode(), // no id
		Cursor{Order: ByMatch, Seq: 0, ID: "cv_m"}.Encode(),
		Cursor{Order: ByMatch, Seq: -5, ID: "cv_m"}.Encode(),
	}
	for _, s := range bad {
		if _, err := DecodeCursor(s); !errors.Is(err, ErrBadCursor) {
			t.Errorf("DecodeCursor(%q) = %v, want ErrBadCursor", s, err)
		}
	}
}

// A cursor keeps the order it was made in: a cursor made before orders
// existed reads as ByCreated, and a store refuses a cursor of another
// order than the filter's.
func TestCursorOrder(t *testing.T) {
	t.Parallel()
	old := "MTc5NTMwNDEwNzUwMzpjdl9haHFlN2JlYTU1MnZteGpkNmJ4Znd6c2hubQ" // docs/api.md's example
	if c, err := DecodeCursor(old); err != nil || c.Order != ByCreated || c.ID != "cv_ahqe7bea552vmxjd6bxfwzshnm" {
		t.Fatalf("an older cursor: %+v, %v", c, err)
	}
	activity := Cursor{Order: ByActivity, At: time.UnixMilli(5).UTC(), ID: "cv_1"}.Encode()
	if _, err := (ConversationFilter{Before: activity}).PageCursor(); !errors.Is(err, ErrBadCursor) {
		t.Errorf("an activity cursor on the creation order: %v, want ErrBadCursor", err)
	}
	if c, err := (ConversationFilter{Before: activity, Order: ByActivity}).PageCursor(); err != nil || c.ID != "cv_1" {
		t.Errorf("an activity cursor on its order: %+v, %v", c, err)
	}
	// A search pages in match order, whatever the list's order.
	match := MatchNext(42, "cv_2")
	if c, err := (ConversationFilter{Before: match, Search: "x", Order: ByActivity}).PageCursor(); err != nil || c.Seq != 42 {
		t.Errorf("a match cursor on a search: %+v, %v", c, err)
	}
	if _, err := (ConversationFilter{Before: activity, Search: "x", Order: ByActivity}).PageCursor(); !errors.Is(err, ErrBadCursor) {
		t.Errorf("an activity cursor on a search: %v, want ErrBadCursor", err)
	}
	if _, err := (ConversationFilter{Before: match, Order: ByActivity}).PageCursor(); !errors.Is(err, ErrBadCursor) {
		t.Errorf("a match cursor without the search: %v, want ErrBadCursor", err)
	}
	if err := (ConversationFilter{Order: ByMatch, Search: "x"}).Check(); err == nil {
		t.Error("ByMatch as a filter's order: no error")
	}
	if c, err := (ConversationFilter{}).PageCursor(); c != nil || err != nil {
		t.Errorf("no cursor: %+v, %v", c, err)
	}
}

// ByWaiting pages only the waiting conversations: the others have no
// waiting_since.
func TestOrderCheck(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, f := range []ConversationFilter{{Order: ByWaiting}, {Order: ByWaiting, Waiting: &no}, {Order: Order(9)}} {
		if f.Check() == nil {
			t.Errorf("%+v passed the check", f)
		}
	}
	for _, f := range []ConversationFilter{{}, {Order: ByActivity}, {Order: ByWaiting, Waiting: &yes}} {
		if err := f.Check(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}
