// Package hours holds an account's business hours (issue 19): for each day
// of the week the times the team is open, in an IANA time zone, and the
// rule that tells whether a moment is outside them. The clock is the
// caller's (a time.Time argument), so the rule is tested with any moment,
// daylight-saving changes included.
package hours

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"parley/internal/domain"
)

// Hours are an account's business hours. Zero Hours (Enabled false) mean
// "always open": no business hours are set.
type Hours struct {
	Enabled bool `json:"enabled"`
	// TimeZone is an IANA name ("Europe/Bucharest"); "" is UTC.
	TimeZone string `json:"time_zone"`
	// Days lists the opening ranges per day of the week. A day without a
	// range is closed all day.
	Days []Range `json:"days"`
}

// Range is one opening range: on Day (0 Sunday … 6 Saturday, as
// time.Weekday), from Open to Close, both "HH:MM" wall-clock times in the
// zone. A Close earlier than or equal to Open runs overnight into the next
// day ("22:00"–"06:00"); "24:00" as Close is the end of the day.
type Range struct {
	Day   int    `json:"day"`
	Open  string `json:"open"`
	Close string `json:"close"`
}

// MaxRanges bounds the ranges of one account.
const MaxRanges = 28

// Parse reads Hours from JSON as the store keeps them; "" is zero Hours.
func Parse(s string) (Hours, error) {
	var h Hours
	if strings.TrimSpace(s) == "" {
		return h, nil
	}
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return Hours{}, fmt.Errorf("hours: %w", err)
	}
	return h, nil
}

// String is h as JSON, for the store.
func (h Hours) String() string {
	if h.Days == nil {
		h.Days = []Range{}
	}
	b, _ := json.Marshal(h)
	return string(b)
}

// Validate checks h: a known time zone, days 0–6, times "HH:MM" from
// 00:00 to 24:00 (24:00 only as Close), at most MaxRanges ranges. Its
// errors are *domain.InvalidError.
func (h Hours) Validate() error {
	if _, err := h.location(); err != nil {
		return domain.Invalid("time_zone is not a known IANA time zone")
	}
	if len(h.Days) > MaxRanges {
		return domain.Invalid(fmt.Sprintf("days holds more than %d ranges", MaxRanges))
	}
	for i, r := range h.Days {
		if r.Day < 0 || r.Day > 6 {
			return domain.Invalid(fmt.Sprintf("days[%d].day must be 0 (Sunday) to 6 (Saturday)", i))
		}
		o, ok := minutes(r.Open)
		if !ok || o == 24*60 {
			return domain.Invalid(fmt.Sprintf("days[%d].open must be a time from 00:00 to 23:59", i))
		}
		if _, ok := minutes(r.Close); !ok {
			return domain.Invalid(fmt.Sprintf("days[%d].close must be a time from 00:00 to 24:00", i))
		}
	}
	return nil
}

func (h Hours) location() (*time.Location, error) {
	if h.TimeZone == "" {
		return time.UTC, nil
	}
	return time.LoadLocation(h.TimeZone)
}

// minutes reads "HH:MM" as minutes since midnight, 00:00 to 24:00.
func minutes(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	var hh, mm int
	for _, c := range s[:2] + s[3:] {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	hh = int(s[0]-'0')*10 + int(s[1]-'0')
	mm = int(s[3]-'0')*10 + int(s[4]-'0')
	if mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, false
	}
	return hh*60 + mm, true
}

// Open reports whether the team is open at t. Hours not enabled are always
// open; enabled Hours that are invalid (an unknown zone) count as open, so
// a broken setting never turns visitors away. Wall-clock times are read in
// the zone at t, so a range keeps its local times across a daylight-saving
// change (a 09:00–17:00 day is eight or so real hours either side of it,
// and a time skipped by the change simply never occurs).
func (h Hours) Open(t time.Time) bool {
	if !h.Enabled {
		return true
	}
	loc, err := h.location()
	if err != nil {
		return true
	}
	local := t.In(loc)
	day := int(local.Weekday())
	now := local.Hour()*60 + local.Minute()
	for _, r := range h.Days {
		o, ok1 := minutes(r.Open)
		c, ok2 := minutes(r.Close)
		if !ok1 || !ok2 {
			continue
		}
		if c > o {
			if r.Day == day && now >= o && now < c {
				return true
			}
			continue
		}
		// Overnight: from Open on its day to Close on the next.
		if r.Day == day && now >= o {
			return true
		}
		if (r.Day+1)%7 == day && now < c {
			return true
		}
	}
	return false
}
