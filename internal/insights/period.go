package insights

import (
	"time"

	"parley/internal/domain"
)

// Period is what a report covers: whole UTC days, From's first instant up
// to (not including) the day after the last, of one agent's conversations
// or (AgentID "") of all the account's.
type Period struct {
	From, To time.Time // [From, To), both 00:00 UTC
	AgentID  string
}

// DefaultDays is the period a report covers when it is not told: the last
// 30 days, today included. MaxDays bounds one report (a year, leap or not).
const (
	DefaultDays = 30
	MaxDays     = 366
)

const dayLayout = "2006-01-02"

// ParsePeriod reads a period as the API and the dashboard take it: from
// and to as YYYY-MM-DD, both days included; either may be "" (to: today,
// from: DefaultDays-1 days before to). It refuses a day that is not a
// date, from after to and a period longer than MaxDays
// (*domain.InvalidError: 400).
func ParsePeriod(from, to, agentID string, now time.Time) (Period, error) {
	now = now.UTC()
	last := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if to != "" {
		d, err := time.Parse(dayLayout, to)
		if err != nil {
			return Period{}, domain.Invalid("to must be a date as YYYY-MM-DD")
		}
		last = d
	}
	first := last.AddDate(0, 0, 1-DefaultDays)
	if from != "" {
		d, err := time.Parse(dayLayout, from)
		if err != nil {
			return Period{}, domain.Invalid("from must be a date as YYYY-MM-DD")
		}
		first = d
	}
	if first.After(last) {
		return Period{}, domain.Invalid("from must not be after to")
	}
	p := Period{From: first, To: last.AddDate(0, 0, 1), AgentID: agentID}
	if p.Days() > MaxDays {
		return Period{}, domain.Invalid("a report covers at most 366 days")
	}
	return p, nil
}

// Days is how many days p covers.
func (p Period) Days() int { return int(p.To.Sub(p.From) / (24 * time.Hour)) }

// FromDay and ToDay are p's first and last days as YYYY-MM-DD (both
// included), as ParsePeriod takes them.
func (p Period) FromDay() string { return p.From.Format(dayLayout) }
func (p Period) ToDay() string   { return p.To.AddDate(0, 0, -1).Format(dayLayout) }
