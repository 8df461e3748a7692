package insights

import (
	"strings"
	"testing"
	"time"

	"parley/internal/store"
)

// A report's totals, rates, median and busiest hours from the store's
// sums.
func TestSummarize(t *testing.T) {
	t.Parallel()
	d0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	r := store.Report{
		Days: []store.DayOutcomes{
			{Day: d0, Conversations: 10, Resolved: 5, HandedOff: 2, Unanswered: 1, Abandoned: 2, Helpful: 4, NotHelpful: 1},
			{Day: d0.AddDate(0, 0, 1)},
			{Day: d0.AddDate(0, 0, 2), Conversations: 4, Resolved: 1, HandedOff: 1, Unanswered: 0, Abandoned: 2, NotHelpful: 2},
		},
		FirstResponses: []time.Duration{90 * time.Second, 30 * time.Second, 10 * time.Minute, 60 * time.Second},
		Ratings:        store.RatingStats{Count: 2, Sum: 9, Scores: [5]int{0, 0, 0, 1, 1}},
	}
	r.Hours[9], r.Hours[14], r.Hours[15], r.Hours[3] = 3, 7, 3, 1
	p := Period{From: d0, To: d0.AddDate(0, 0, 3)}
	s := summarize(p, r)
	if s.Totals.Conversations != 14 || s.Totals.Resolved != 6 || s.Totals.HandedOff != 3 || s.Totals.Unanswered != 1 ||
		s.Totals.Abandoned != 4 || s.Totals.Helpful != 4 || s.Totals.NotHelpful != 3 {
		t.Fatalf("totals %+v", s.Totals)
	}
	if s.Asked() != 10 {
		t.Fatalf("asked %d, want 10", s.Asked())
	}
	if *s.AIResolutionRate != 0.6 || *s.HandoffRate != 0.3 || *s.UnansweredRate != 0.1 {
		t.Fatalf("rates %v %v %v, want 0.6 0.3 0.1", *s.AIResolutionRate, *s.HandoffRate, *s.UnansweredRate)
	}
	// 30s, 60s, 90s, 10m: the mean of the middle two.
	if s.MedianFirstResponse == nil || *s.MedianFirstResponse != 75*time.Second || s.FirstResponses != 4 {
		t.Fatalf("median first response %v of %d, want 75s of 4", s.MedianFirstResponse, s.FirstResponses)
	}
	want := []HourCount{{14, 7}, {9, 3}, {15, 3}}
	if len(s.BusiestHours) != 3 || s.BusiestHours[0] != want[0] || s.BusiestHours[1] != want[1] || s.BusiestHours[2] != want[2] {
		t.Fatalf("busiest hours %v, want %v", s.BusiestHours, want)
	}

	var csv strings.Builder
	if err := s.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	wantCSV := "date,conversations,resolved,handed_off,unanswered,abandoned,helpful,not_helpful\n" +
		"2026-11-01,10,5,2,1,2,4,1\n2026-11-02,0,0,0,0,0,0,0\n2026-11-03,4,1,1,0,2,0,2\ntotal,14,6,3,1,4,4,3\n"
	if csv.String() != wantCSV {
		t.Fatalf("CSV:\n%s\nwant:\n%s", csv.String(), wantCSV)
	}
}

// Nobody asked anything: no rates (not 0%), no median, no busiest hour.
func TestSummarizeEmpty(t *testing.T) {
	t.Parallel()
	d0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := summarize(Period{From: d0, To: d0.AddDate(0, 0, 1)}, store.Report{Days: []store.DayOutcomes{{Day: d0, Conversations: 3, Abandoned: 3}}})
	if s.AIResolutionRate != nil || s.HandoffRate != nil || s.UnansweredRate != nil || s.MedianFirstResponse != nil || len(s.BusiestHours) != 0 {
		t.Fatalf("an empty period has figures: %+v", s)
	}
	if odd, _ := median([]time.Duration{3 * time.Second, time.Second, 2 * time.Second}); odd != 2*time.Second {
		t.Fatalf("median of three %v, want 2s", odd)
	}
}
