package dashboard

import (
	"database/sql"
	"fmt"
	"net/http"
	"testing"
	"time"

	"parley/internal/secret"
	"parley/internal/store"
)

// The operator desk's budget (issue 19): inbox pages under 50 ms of server
// time with 100,000 conversations in the account, for the main filters.
// Numbers and method in docs/benchmarks.md; timings are never asserted.
//
//	go test -run '^$' -bench Inbox100k -benchtime 50x ./internal/dashboard/

// seedDesk writes n conversations of two messages each straight into the
// file, one transaction: every 20th resolved, every 10th assigned to the
// owner (human), every 100th waiting for a human; the latest activity is
// the reply, for every 7th one much later (so that the order by activity
// is not that of the starts).
func seedDesk(b *testing.B, td *testDash, n int) {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+td.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	conv, err := tx.Prepare(`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at,
		waiting, assignee_id, assignee_name, status, last_activity_at, waiting_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := tx.Prepare(`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES (?, ?, ?, ?, '', ?)`)
	if err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-200 * 24 * time.Hour).UnixMilli()
	for i := range n {
		id := secret.ConversationID()
		at := base + int64(i)*60_000
		mode, waiting, assignee, name, status := "ai", 0, "", "", "open"
		var since any // NULL: not waiting
		switch {
		case i%20 == 0:
			status = "resolved"
		case i%10 == 5:
			mode, assignee, name = "human", td.owner.ID, "Owner"
		case i%100 == 7:
			waiting, since = 1, at+1000
		}
		// Every 7th conversation's reply came much later, out of the
		// order of starts, as the desk's list by activity meets them.
		activity := at + 1000
		if i%7 == 0 {
			activity += int64(n-i) * 60_000
		}
		if _, err := conv.Exec(id, td.agent.ID, td.owner.AccountID, secret.VisitorID(), "https://shop.example/p", mode, at,
			waiting, assignee, name, status, activity, since); err != nil {
			b.Fatal(err)
		}
		text := fmt.Sprintf("Question number %d about shipping to Chișinău", i)
		for _, m := range []struct {
			role, text string
			at         int64
		}{{"visitor", text, at}, {"ai", "Delivery is free over 500 lei.", activity}} {
			if _, err := msg.Exec(id, m.role, m.text, store.Fold(m.text), m.at); err != nil {
				b.Fatal(err)
			}
		}
	}
	// What the store's indexer would do a batch at a time (migration 0021).
	if _, err := tx.Exec(`INSERT INTO messages_search (rowid, text_folded) SELECT seq, text_folded FROM messages`); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE message_search_state SET indexed_seq = (SELECT max(seq) FROM messages)`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkInbox100k(b *testing.B) {
	td := newTestDash(b, func(mux *http.ServeMux, d *Dashboard) {
		allRoutes(mux, d)
	})
	seedDesk(b, td, 100_000)
	br := td.signedIn(td.owner).c
	for _, page := range []string{
		"/inbox", "/inbox?view=mine", "/inbox?view=unassigned", "/inbox?view=waiting", "/inbox?view=resolved",
		"/inbox?view=all&agent=" + td.agent.ID,
		// The search (docs/benchmarks.md): 1, 11, 1,111 and 11,111 matching
		// messages (the last two in old conversations), every conversation,
		// and one or two characters.
		"/inbox?q=number+99999", "/inbox?q=number+4242", "/inbox?q=number+12", "/inbox?q=number+1",
		"/inbox?q=shipping", "/inbox?q=delivery+is+free", "/inbox?view=mine&q=shipping", "/inbox?view=mine&q=number+12", "/inbox?view=mine&q=number+1",
		"/inbox?q=%C8%99", "/inbox?q=zq",
	} {
		b.Run(page, func(b *testing.B) {
			for b.Loop() {
				res, err := br.Get(td.srv.URL + page)
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("%s: %v %v", page, err, res)
				}
				res.Body.Close()
			}
		})
	}
}
