package insights

import (
	"context"
	"math"
	"slices"
	"time"

	"parley/internal/store"
)

// Summary is a period's report: the store's sums (store.Report) and what
// follows from them.
type Summary struct {
	Period
	// Totals sums the period's days: conversations by outcome and the
	// thumbs on their answers.
	Totals store.DayOutcomes
	Days   []store.DayOutcomes
	// The rates are shares of the conversations in which the visitor
	// asked something (Asked: all but the abandoned ones), so the three
	// add up to 1; each is nil when nobody asked anything.
	AIResolutionRate, HandoffRate, UnansweredRate *float64
	// MedianFirstResponse is the median of the operators' first
	// responses (domain.Conversation.FirstResponse), nil when none;
	// FirstResponses says of how many.
	MedianFirstResponse *time.Duration
	FirstResponses      int
	// Hours counts conversations by the UTC hour they started in;
	// BusiestHours are the (up to) three hours with most, most first.
	Hours        [24]int
	BusiestHours []HourCount
	Ratings      store.RatingStats // CSAT: the visitors' 1-5 ratings
}

// HourCount is the conversations started in one hour of the UTC day.
type HourCount struct {
	Hour, Conversations int
}

// Asked is how many of the period's conversations had a visitor message.
func (s Summary) Asked() int { return s.Totals.Conversations - s.Totals.Abandoned }

// Report is the account's report for p; an agent of another account is
// domain.ErrNotFound.
func (s *Service) Report(ctx context.Context, accountID string, p Period) (Summary, error) {
	if err := s.checkAgent(ctx, accountID, p.AgentID); err != nil {
		return Summary{}, err
	}
	r, err := s.store.Report(ctx, accountID, store.ReportFilter{AgentID: p.AgentID, From: p.From, To: p.To})
	if err != nil {
		return Summary{}, err
	}
	return summarize(p, r), nil
}

// summarize works out a Summary from the store's sums.
func summarize(p Period, r store.Report) Summary {
	s := Summary{Period: p, Days: r.Days, Hours: r.Hours, Ratings: r.Ratings, FirstResponses: len(r.FirstResponses)}
	for _, d := range r.Days {
		s.Totals.Plus(d)
	}
	if asked := s.Asked(); asked > 0 {
		s.AIResolutionRate = rate(s.Totals.Resolved, asked)
		s.HandoffRate = rate(s.Totals.HandedOff, asked)
		s.UnansweredRate = rate(s.Totals.Unanswered, asked)
	}
	if m, ok := median(r.FirstResponses); ok {
		s.MedianFirstResponse = &m
	}
	s.BusiestHours = busiest(r.Hours, 3)
	return s
}

// rate is n of total, rounded to four decimals (0.1234: 12.34%).
func rate(n, total int) *float64 {
	r := math.Round(float64(n)/float64(total)*10000) / 10000
	return &r
}

// median is the middle of d (the mean of the two middle ones for an even
// count), whole seconds; d need not be sorted.
func median(d []time.Duration) (time.Duration, bool) {
	if len(d) == 0 {
		return 0, false
	}
	d = slices.Clone(d)
	slices.Sort(d)
	m := d[len(d)/2]
	if len(d)%2 == 0 {
		m = (d[len(d)/2-1] + m) / 2
	}
	return m.Round(time.Second), true
}

// busiest lists the n hours with most conversations, most first, the
// earlier hour first on a tie; hours without any are left out.
func busiest(hours [24]int, n int) []HourCount {
	var out []HourCount
	for h, c := range hours {
		if c > 0 {
			out = append(out, HourCount{Hour: h, Conversations: c})
		}
	}
	slices.SortStableFunc(out, func(a, b HourCount) int { return b.Conversations - a.Conversations })
	return out[:min(n, len(out))]
}

// Round2 rounds to two decimals (an average rating: 4.67).
func Round2(f float64) float64 { return math.Round(f*100) / 100 }
