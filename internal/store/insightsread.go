package store

import (
	"time"

	"parley/internal/domain"
)

// What both stores share of the Insights reads (issue 20): the limit's
// clamp and where a grouped row of a report goes, so that SQLite and
// PostgreSQL answer alike from their own SQL.

// ClampQuestions bounds a Questions or OperatorAnswers limit to
// 1..MaxQuestions.
func ClampQuestions(limit int) int {
	return min(max(limit, 1), MaxQuestions)
}

// ReportDays are a report's days with nothing counted yet: one per UTC
// day from the one holding from up to the last one starting before to, as
// Days lists them for ConversationsPerDay.
func ReportDays(from, to time.Time) []DayOutcomes {
	days := Days(from, to)
	out := make([]DayOutcomes, len(days))
	for i, d := range days {
		out[i].Day = d.Day
	}
	return out
}

// CountOutcome adds n conversations of outcome o, with helpful and
// notHelpful thumbs between them, to day i of days, ignoring an i outside
// them (which the stores' queries never make: created_at >= from >= the
// first day; it guards the index).
func CountOutcome(days []DayOutcomes, i int64, o domain.Outcome, n, helpful, notHelpful int) {
	if i >= 0 && i < int64(len(days)) {
		days[i].AddOutcome(o, n, helpful, notHelpful)
	}
}

// CountHour adds n conversations to hour h (0-23) of r.Hours, ignoring an
// h outside the day.
func (r *Report) CountHour(h int64, n int) {
	if h >= 0 && h < int64(len(r.Hours)) {
		r.Hours[h] += n
	}
}

// CountThumbs adds helpful and notHelpful thumbs to day i of days,
// ignoring an i outside them.
func CountThumbs(days []DayOutcomes, i int64, helpful, notHelpful int) {
	if i >= 0 && i < int64(len(days)) {
		days[i].Helpful += helpful
		days[i].NotHelpful += notHelpful
	}
}

// BuildReport is a report of [from, to) made by two parts at once, each
// into a report of its own, then summed: counts (the conversations by day,
// outcome and hour) and rest (thumbs, first responses, ratings). A store
// runs each on a connection of its own, so a report of a year takes about
// as long as its larger part on a machine with a core to spare
// (docs/benchmarks.md "Insights at 1,000,000 messages").
func BuildReport(from, to time.Time, counts, rest func(*Report) error) (Report, error) {
	empty := func() Report { return Report{Days: ReportDays(from, to), FirstResponses: []time.Duration{}} }
	r, other := empty(), empty()
	if len(r.Days) == 0 {
		return r, nil
	}
	var restErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		restErr = rest(&other)
	}()
	err := counts(&r)
	<-done
	if err != nil {
		return Report{}, err
	}
	if restErr != nil {
		return Report{}, restErr
	}
	r.add(other)
	return r, nil
}

// add sums o into r, which cover the same days.
func (r *Report) add(o Report) {
	for i := range r.Days {
		r.Days[i].Plus(o.Days[i])
	}
	for h, n := range o.Hours {
		r.Hours[h] += n
	}
	r.FirstResponses = append(r.FirstResponses, o.FirstResponses...)
	for i, n := range o.Ratings.Scores {
		r.Ratings.Add(i+1, n)
	}
}
