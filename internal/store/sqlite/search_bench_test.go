package sqlite

import (
	"fmt"
	"testing"
	"time"

	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/storetest"
)

// BenchmarkSearch100k is the inbox search of one account with 100,000
// conversations of two messages each (every 20th resolved, every 10th
// assigned to one operator, every 5,000th to a newcomer), measured by
// storetest.BenchSearch. The seed takes about a minute; timings are never
// asserted.
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
	storetest.BenchSearch(b, s, acc.ID, owner, newcomer, func(n int) { s.smallList = n })
}
