package storetest

import (
	"fmt"
	"testing"

	"parley/internal/store"
)

// SearchBenchTerms are the inbox searches the stores' BenchmarkSearch100k
// measure at 100,000 conversations (docs/benchmarks.md), with how many of
// the 200,000 messages each matches. The visitor's message of
// conversation i is "Question number i about shipping to Chișinău", the
// reply "Delivery is free over 500 lei.", so "number 12" is in
// conversations 12, 120–129, 1,200–1,299 and 12,000–12,999: old ones, far
// down the list.
var SearchBenchTerms = []string{
	"number 99999",     // 1 message, the newest conversation
	"number 4242",      // 11
	"number 12",        // 1,111, old
	"number 1",         // 11,111, old
	"shipping",         // 100,000, every conversation
	"delivery is free", // 100,000
	"ș",                // 1-2 characters: the window; every conversation
	"zq",               // 1-2 characters: none
}

// BenchSearch measures each of SearchBenchTerms on a seeded store, first
// page and second, in the open list, owner's and newcomer's (a small
// list), and the newcomer's again by the index (setSmall(0) turns the
// small list's way off, setSmall(store.ShortSearchWindow) back on).
func BenchSearch(b *testing.B, s store.Store, accountID, owner, newcomer string, setSmall func(int)) {
	for _, q := range SearchBenchTerms {
		for _, view := range []struct {
			name     string
			assignee string
			index    bool // the index's way even in a small list
		}{
			{"open", "", false},
			{"mine", owner, false},
			// A newcomer's 20 conversations: a small list, searched
			// through its messages, and the same by the index.
			{"few", newcomer, false},
			{"few-by-index", newcomer, true},
		} {
			f := store.ConversationFilter{Status: "open", Search: q, Limit: 50}
			if view.assignee != "" {
				f.Assignee = &view.assignee
			}
			setSmall(store.ShortSearchWindow)
			if view.index {
				setSmall(0)
			}
			b.Run(fmt.Sprintf("%s/q=%s", view.name, q), func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Conversations(b.Context(), accountID, f); err != nil {
						b.Fatal(err)
					}
				}
			})
			// The second page: the cursor's conversations checked for
			// newer matches.
			first, err := s.Conversations(b.Context(), accountID, f)
			if err != nil {
				b.Fatal(err)
			}
			if first.Next == "" {
				continue
			}
			f.Before = first.Next
			b.Run(fmt.Sprintf("%s/page2/q=%s", view.name, q), func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Conversations(b.Context(), accountID, f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	setSmall(store.ShortSearchWindow)
}
