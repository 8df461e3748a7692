package insights

import (
	"encoding/csv"
	"io"
	"strconv"

	"parley/internal/store"
)

// CSVHeader is the first row of WriteCSV: one column per figure of a day.
var CSVHeader = []string{"date", "conversations", "resolved", "handed_off", "unanswered", "abandoned", "helpful", "not_helpful"}

// WriteCSV writes the report's days as CSV (RFC 4180, as spreadsheets
// read it): the header, one row per day, oldest first, and a last row
// "total".
func (s Summary) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	row := func(first string, d store.DayOutcomes) []string {
		out := []string{first}
		for _, n := range []int{d.Conversations, d.Resolved, d.HandedOff, d.Unanswered, d.Abandoned, d.Helpful, d.NotHelpful} {
			out = append(out, strconv.Itoa(n))
		}
		return out
	}
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, d := range s.Days {
		if err := cw.Write(row(d.Day.UTC().Format(dayLayout), d)); err != nil {
			return err
		}
	}
	if err := cw.Write(row("total", s.Totals)); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// CSVName is the file name a report of p downloads as.
func CSVName(p Period) string {
	name := "parley-insights-" + p.FromDay() + "-" + p.ToDay()
	if p.AgentID != "" {
		name += "-" + p.AgentID
	}
	return name + ".csv"
}
