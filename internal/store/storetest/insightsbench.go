package storetest

import (
	"fmt"
	"testing"
	"time"

	"parley/internal/store"
	"parley/internal/testsvc"
)

// The stores' BenchmarkInsights1M seed one account with 1,000,000
// messages the same way, in SQL (docs/benchmarks.md "Insights at
// 1,000,000 messages"):
//
//   - InsightsBenchConversations conversations, one every 252.288 s over
//     the 365 days before the benchmark's end, so a 365-day report reads
//     all of them and a 30-day one about a twelfth;
//   - three agents: ag0 half of them, ag1 three tenths, ag2 a fifth;
//   - by i % 20: 0-1 abandoned (no message), 2-12 resolved (8 messages, a
//     third of them with a thumbs up on the last answer), 13-14 unanswered
//     (8 messages, the last answer missed), 15 unanswered by a thumbs-down
//     on the last answer (8 messages), 16-19 handed off (12 messages: the
//     third answer missed, then three visitor messages each answered by an
//     operator, the first 2 min 20 s to 17 min after the handoff);
//   - a questions row for each missed or thumbed-down answer (43,750), a
//     quarter of them answered by a knowledge entry; a rating on every
//     tenth conversation that was not abandoned.
const (
	InsightsBenchConversations = 125_000
	InsightsBenchMessages      = 1_000_000
	InsightsBenchSpan          = 365 * store.UTCDay
)

// BenchInsights measures the reports of issue 20 on a store seeded as
// above, the seed's newest conversation just before end: Report over 30
// and 365 days, of the whole account and of agent ag1; Questions (all and
// open ones, at most store.MaxQuestions, as the knowledge gaps read them)
// and OperatorAnswers over 365 days. Each reports the process's CPU time
// per operation beside the wall time (testsvc.CPU): on a shared machine
// the store's own cost, for SQLite all of it.
func BenchInsights(b *testing.B, s store.Insights, accountID, agentID string, end time.Time) {
	for _, days := range []int{30, 365} {
		from := end.Add(-time.Duration(days) * store.UTCDay)
		for _, agent := range []string{"", agentID} {
			name := "all"
			if agent != "" {
				name = "agent"
			}
			f := store.ReportFilter{AgentID: agent, From: from, To: end}
			b.Run(fmt.Sprintf("report/%dd/%s", days, name), func(b *testing.B) {
				defer testsvc.CPU(b)()
				for b.Loop() {
					if _, err := s.Report(b.Context(), accountID, f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	from := end.Add(-InsightsBenchSpan)
	for _, open := range []bool{false, true} {
		name := "questions/365d/all"
		if open {
			name = "questions/365d/open"
		}
		f := store.QuestionFilter{From: from, To: end, Limit: store.MaxQuestions, Open: open}
		b.Run(name, func(b *testing.B) {
			defer testsvc.CPU(b)()
			for b.Loop() {
				if _, err := s.Questions(b.Context(), accountID, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	f := store.QuestionFilter{From: from, To: end, Limit: store.MaxQuestions}
	b.Run("operator-answers/365d", func(b *testing.B) {
		defer testsvc.CPU(b)()
		for b.Loop() {
			if _, err := s.OperatorAnswers(b.Context(), accountID, f); err != nil {
				b.Fatal(err)
			}
		}
	})
}
