package insights

import (
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
)

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 23, 59, 0, 0, time.FixedZone("+3", 3*3600)) // 20:59 UTC
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	for _, c := range []struct {
		from, to     string
		first, after string // the period's From and To
	}{
		{"", "", "2026-10-30", "2026-11-29"}, // the last 30 days, today (UTC) included
		{"2026-11-01", "2026-11-30", "2026-11-01", "2026-12-01"},
		{"2026-11-05", "2026-11-05", "2026-11-05", "2026-11-06"}, // one day
		{"", "2026-02-28", "2026-01-30", "2026-03-01"},
		{"2024-01-01", "2024-12-31", "2024-01-01", "2025-01-01"}, // a leap year: 366 days
	} {
		p, err := ParsePeriod(c.from, c.to, "ag_x", now)
		if err != nil {
			t.Errorf("%q..%q: %v", c.from, c.to, err)
			continue
		}
		if !p.From.Equal(day(c.first)) || !p.To.Equal(day(c.after)) || p.AgentID != "ag_x" {
			t.Errorf("%q..%q: [%v, %v) %q, want [%s, %s)", c.from, c.to, p.From, p.To, p.AgentID, c.first, c.after)
		}
		if c.from != "" && (p.FromDay() != c.from || p.ToDay() != c.to) {
			t.Errorf("%q..%q: written back as %s..%s", c.from, c.to, p.FromDay(), p.ToDay())
		}
	}
	for _, c := range [][2]string{
		{"2026-11-31", ""}, {"28.11.2026", ""}, {"", "2026-13-01"}, {"2026-11-02", "2026-11-01"},
		{"2025-01-01", "2026-01-02"}, // 367 days
		{"2026-11-01T00:00:00Z", ""},
	} {
		_, err := ParsePeriod(c[0], c[1], "", now)
		var invalid *domain.InvalidError
		if !errors.As(err, &invalid) {
			t.Errorf("%q..%q: %v, want a 400", c[0], c[1], err)
		}
	}
}
