package sqlite

import (
	"fmt"
	"testing"
	"time"

	"parley/internal/secret"
	"parley/internal/store"
)

// searchBenchTerms are the inbox searches measured at 100,000
// conversations (docs/benchmarks.md), with how many of the 200,000
// messages each matches. The visitor's message of conversation i is
// "Question number i about shipping to Chișinău", the reply "Delivery is
// free over 500 lei.", so "number 12" is in conversations 12, 120–129,
// 1,200–1,299 and 12,000–12,999: old ones, far down the list.
var searchBenchTerms = []string{
	"number 99999",     // 1 message, the newest conversation
	"number 4242",      // 11
	"number 12",        // 1,111, old
	"number 1",         // 11,111, old
	"shipping",         // 100,000, every conversation
	"delivery is free", // 100,000
	"ș",                // 1-2 characters: the window; every conversation
	"zq",               // 1-2 characters: none
}

// BenchmarkSearch100k is the inbox search of one account with 100,000
// conversations of two messages each (every 20th resolved, every 10th
// assigned to one operator, every 5,000th to a newcomer), in the open
// list, the assignee's and the newcomer's, as Conversations runs it. The seed takes about a minute; timings are never asserted.
//
//	go test -run '^$' -bench Search100k -benchtime 20x ./internal/store/sqlite/
func BenchmarkSearch100k(b *testing.B) {
	s := openTemp(b)
	acc, ag := newAgentFixtureOn(b, s)
	const owner, newcomer = "usr_bench", "usr_new"
	tx, err := s.w.Begin()
	if err != nil {
		b.Fatal(err)
	}
	conv, err := tx.Prepare(`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at,
		assignee_id, status, last_activity_at) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := tx.Prepare(`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES (?, ?, ?, ?, '', ?)`)
	if err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-200 * 24 * time.Hour).UnixMilli()
	for i := range 100_000 {
		id := secret.ConversationID()
		at := base + int64(i)*60_000
		mode, assignee, status := "ai", "", "open"
		switch {
		case i%20 == 0:
			status = "resolved"
		case i%10 == 5:
			mode, assignee = "human", owner
		case i%5000 == 7:
			mode, assignee = "human", newcomer
		}
		if _, err := conv.Exec(id, ag.ID, acc.ID, secret.VisitorID(), mode, at, assignee, status, at+1000); err != nil {
			b.Fatal(err)
		}
		for j, text := range []string{fmt.Sprintf("Question number %d about shipping to Chișinău", i), "Delivery is free over 500 lei."} {
			if _, err := msg.Exec(id, []string{"visitor", "ai"}[j], text, store.Fold(text), at+int64(j)*1000); err != nil {
				b.Fatal(err)
			}
		}
	}
	// What the indexer would do a batch at a time (searchindex.go).
	if _, err := tx.Exec(`INSERT INTO messages_search (rowid, text_folded) SELECT seq, text_folded FROM messages`); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE message_search_state SET indexed_seq = (SELECT max(seq) FROM messages)`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	mine, few := owner, newcomer
	for _, q := range searchBenchTerms {
		for _, view := range []struct {
			name  string
			f     store.ConversationFilter
			index bool // the index's way even in a small list
		}{
			{"open", store.ConversationFilter{Status: "open"}, false},
			{"mine", store.ConversationFilter{Status: "open", Assignee: &mine}, false},
			// A newcomer's 20 conversations: a small list, searched
			// through its messages, and the same by the index.
			{"few", store.ConversationFilter{Status: "open", Assignee: &few}, false},
			{"few-by-index", store.ConversationFilter{Status: "open", Assignee: &few}, true},
		} {
			f := view.f
			f.Search, f.Limit = q, 50
			s.smallList = store.ShortSearchWindow
			if view.index {
				s.smallList = 0
			}
			b.Run(fmt.Sprintf("%s/q=%s", view.name, q), func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Conversations(b.Context(), acc.ID, f); err != nil {
						b.Fatal(err)
					}
				}
			})
			// The second page: the cursor's conversations checked for
			// newer matches.
			first, err := s.Conversations(b.Context(), acc.ID, f)
			if err != nil {
				b.Fatal(err)
			}
			if first.Next == "" {
				continue
			}
			f.Before = first.Next
			b.Run(fmt.Sprintf("%s/page2/q=%s", view.name, q), func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Conversations(b.Context(), acc.ID, f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
