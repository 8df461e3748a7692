package store

import (
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
)

func TestCanDeleteUser(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		role   domain.UserRole
		owners int
		want   error
	}{
		{domain.UserOwner, 1, ErrLastOwner},
		{domain.UserOwner, 0, ErrLastOwner}, // never counted so, but still refused
		{domain.UserOwner, 2, nil},
		{domain.UserOperator, 1, nil},
	} {
		if err := CanDeleteUser(tt.role, tt.owners); !errors.Is(err, tt.want) || (tt.want != nil && !errors.Is(err, domain.ErrConflict)) {
			t.Errorf("CanDeleteUser(%s, %d) = %v, want %v (an ErrConflict)", tt.role, tt.owners, err, tt.want)
		}
	}
}

// NextVersion is strictly later than the previous version, also when the
// clock has not moved on (or went back).
func TestNextVersion(t *testing.T) {
	t.Parallel()
	prev := time.UnixMilli(1_000_000).UTC()
	for _, now := range []time.Time{prev, prev.Add(-time.Second)} {
		if got := NextVersion(prev, now); !got.Equal(prev.Add(time.Millisecond)) {
			t.Errorf("NextVersion(%v, %v) = %v, want a millisecond after", prev, now, got)
		}
	}
	if later := prev.Add(time.Minute); !NextVersion(prev, later).Equal(later) {
		t.Errorf("NextVersion with a later clock = %v, want %v", NextVersion(prev, later), later)
	}
}

// Days lists every UTC day that [from, to) touches.
func TestDays(t *testing.T) {
	t.Parallel()
	day := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		from, to time.Time
		want     int
	}{
		{day, day, 0},
		{day, day.Add(time.Millisecond), 1},
		{day.Add(23 * time.Hour), day.Add(25 * time.Hour), 2},
		{day, day.Add(7 * UTCDay), 7},
	} {
		got := Days(tt.from, tt.to)
		if len(got) != tt.want || (tt.want > 0 && !got[0].Day.Equal(day)) {
			t.Errorf("Days(%v, %v) = %v, want %d days from %v", tt.from, tt.to, got, tt.want, day)
		}
	}
}
