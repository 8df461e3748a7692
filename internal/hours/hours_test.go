package hours

import (
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	weekdays := func(open, close string) []Range {
		var rs []Range
		for d := 1; d <= 5; d++ {
			rs = append(rs, Range{Day: d, Open: open, Close: close})
		}
		return rs
	}
	buc := Hours{Enabled: true, TimeZone: "Europe/Bucharest", Days: weekdays("09:00", "17:00")}
	ny := Hours{Enabled: true, TimeZone: "America/New_York", Days: weekdays("09:00", "17:00")}
	night := Hours{Enabled: true, TimeZone: "Europe/Bucharest", Days: []Range{{Day: 5, Open: "22:00", Close: "06:00"}}}
	allDay := Hours{Enabled: true, TimeZone: "UTC", Days: []Range{{Day: 0, Open: "00:00", Close: "24:00"}}}
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, c := range []struct {
		name string
		h    Hours
		t    string
		want bool
	}{
		{"disabled is always open", Hours{}, "2026-11-29T03:00:00Z", true},
		{"enabled without days is closed", Hours{Enabled: true}, "2026-11-25T12:00:00Z", false},
		{"Wednesday 10:00 local (08:00Z, EET)", buc, "2026-11-25T08:00:00Z", true},
		{"Wednesday 08:59 local", buc, "2026-11-25T06:59:00Z", false},
		{"Wednesday 17:00 local is closed (end exclusive)", buc, "2026-11-25T15:00:00Z", false},
		{"Wednesday 16:59 local", buc, "2026-11-25T14:59:00Z", true},
		{"Saturday noon", buc, "2026-11-28T10:00:00Z", false},
		// Summer time (EEST, UTC+3): 09:00 local is 06:00Z.
		{"summer 09:00 local", buc, "2026-07-01T06:00:00Z", true},
		{"summer 08:30 local (would be 09:30 in winter)", buc, "2026-07-01T05:30:00Z", false},
		// The DST change in New York, Monday 2026-03-09 (after Sunday's
		// change): 09:00 EDT is 13:00Z, the Friday before 09:00 EST is 14:00Z.
		{"NY Monday after spring forward 09:00 EDT", ny, "2026-03-09T13:00:00Z", true},
		{"NY Friday before at 13:00Z is 08:00 EST", ny, "2026-03-06T13:00:00Z", false},
		{"NY Friday before at 14:00Z", ny, "2026-03-06T14:00:00Z", true},
		{"overnight: Friday 23:00 local", night, "2026-11-27T21:00:00Z", true},
		{"overnight: Saturday 05:59 local", night, "2026-11-28T03:59:00Z", true},
		{"overnight: Saturday 06:00 local", night, "2026-11-28T04:00:00Z", false},
		{"overnight: Friday 21:59 local", night, "2026-11-27T19:59:00Z", false},
		{"overnight: Thursday 23:00 local", night, "2026-11-26T21:00:00Z", false},
		{"24:00 close: Sunday 23:59", allDay, "2026-11-29T23:59:00Z", true},
		{"24:00 close: Monday 00:00", allDay, "2026-11-30T00:00:00Z", false},
		{"overnight across the week: Saturday→Sunday", Hours{Enabled: true, Days: []Range{{Day: 6, Open: "20:00", Close: "02:00"}}}, "2026-11-29T01:00:00Z", true},
		{"unknown zone counts as open", Hours{Enabled: true, TimeZone: "Mars/Base"}, "2026-11-25T12:00:00Z", true},
	} {
		if got := c.h.Open(at(c.t)); got != c.want {
			t.Errorf("%s: Open(%s) = %v, want %v", c.name, c.t, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		h  Hours
		ok bool
	}{
		{Hours{}, true},
		{Hours{Enabled: true, TimeZone: "Europe/Moscow", Days: []Range{{Day: 1, Open: "09:00", Close: "24:00"}}}, true},
		{Hours{TimeZone: "Nowhere/Town"}, false},
		{Hours{Days: []Range{{Day: 7, Open: "09:00", Close: "10:00"}}}, false},
		{Hours{Days: []Range{{Day: 1, Open: "24:00", Close: "10:00"}}}, false},
		{Hours{Days: []Range{{Day: 1, Open: "9:00", Close: "10:00"}}}, false},
		{Hours{Days: []Range{{Day: 1, Open: "09:60", Close: "10:00"}}}, false},
		{Hours{Days: []Range{{Day: 1, Open: "09:00", Close: "24:01"}}}, false},
		{Hours{Days: make([]Range, MaxRanges+1)}, false},
	} {
		for i := range c.h.Days {
			if c.h.Days[i].Open == "" {
				c.h.Days[i] = Range{Day: 1, Open: "09:00", Close: "10:00"}
			}
		}
		if err := c.h.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: Validate() = %v, want ok=%v", c.h, err, c.ok)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	h := Hours{Enabled: true, TimeZone: "Europe/Bucharest", Days: []Range{{Day: 1, Open: "09:00", Close: "17:00"}}}
	got, err := Parse(h.String())
	if err != nil || got.String() != h.String() {
		t.Fatalf("Parse(String()) = %+v, %v", got, err)
	}
	if z, err := Parse(""); err != nil || z.Enabled {
		t.Fatalf(`Parse("") = %+v, %v`, z, err)
	}
}
