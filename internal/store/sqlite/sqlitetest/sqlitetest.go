// Package sqlitetest gives tests an empty SQLite database with every
// migration applied, quickly: a copy of one migrated once per test binary
// (testsvc.CopyOf), which opens in about 30 ms under -race where a new one
// takes about 300 ms. Only tests import it.
package sqlitetest

import (
	"context"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/testsvc"
)

// Path returns the path of a migrated, empty database file of the test's
// own, to pass to sqlite.Open.
func Path(tb testing.TB) string {
	tb.Helper()
	return testsvc.CopyOf(tb, "sqlite", "parley.db", func(path string) error {
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			return err
		}
		return s.Close()
	})
}

// Agent opens a migrated, empty store of the test's own (closed when the
// test ends) with one account and one agent, "Ana", knowing knowledge: the
// setting of tests that need a real agent and nothing else.
func Agent(tb testing.TB, knowledge ...domain.KnowledgeEntry) (*sqlite.Store, domain.Agent) {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, Path(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: "o@example.test", Name: "Owner", PasswordHash: "x"})
	if err != nil {
		tb.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Ana", Knowledge: knowledge})
	if err != nil {
		tb.Fatal(err)
	}
	return st, ag
}
