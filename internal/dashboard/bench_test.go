package dashboard

import (
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/internal/secret"
)

// The dashboard's budget is 50 ms of server time per page with 10,000
// conversations in the database. These benchmarks measure the pages
// against such a database (numbers and method in docs/benchmarks.md);
// timings are never asserted.
//
//	go test -run '^$' -bench Page -benchtime 50x ./internal/dashboard/

func seed10k(b *testing.B, td *testDash) string {
	b.Helper()
	// Bulk rows straight into the file in one transaction: through the
	// store, every insert would wait for its own fsync.
	db, err := sql.Open("sqlite", "file:"+td.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-20 * 24 * time.Hour).UnixMilli()
	var last string
	for i := range 10000 {
		id := secret.ConversationID()
		at := base + int64(i)*60_000
		text := fmt.Sprintf("Question number %d about shipping to Chișinău", i)
		reply := "Delivery is free over 500 lei."
		if _, err := tx.Exec(`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, last_activity_at)
			VALUES (?, ?, ?, ?, ?, 'ai', ?, ?)`, id, td.agent.ID, td.owner.AccountID, secret.VisitorID(), "https://shop.example/p", at, at+1000); err != nil {
			b.Fatal(err)
		}
		for j, m := range []struct{ role, text string }{{"visitor", text}, {"ai", reply}} {
			if _, err := tx.Exec(`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES (?, ?, ?, ?, '', ?)`,
				id, m.role, m.text, strings.ToLower(m.text), at+int64(j)*1000); err != nil {
				b.Fatal(err)
			}
		}
		last = id
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return last
}

func BenchmarkPages10k(b *testing.B) {
	td := newTestDash(b, func(mux *http.ServeMux, d *Dashboard) {
		allRoutes(mux, d)
		mux.HandleFunc("GET /usage", d.User(d.Usage))
		mux.HandleFunc("GET /agents/{id}", d.Owner(d.Agent))
	})
	conv := seed10k(b, td)
	br := td.signedIn(td.owner).c
	for _, page := range []string{"/inbox", "/inbox?q=chi%C8%99in%C4%83u+9999", "/inbox?mode=waiting", "/conversations/" + conv, "/usage", "/agents/" + td.agent.ID} {
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
