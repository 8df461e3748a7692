package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// TestCheckpointerCopiesTheWAL: committed writes reach the database file
// itself soon after, though the writer's own automatic checkpoint would
// wait for thousands of pages: the checkpointer's connection copied them.
func TestCheckpointerCopiesTheWAL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "parley.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var auto int
	if err := s.w.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != writerAutoCheckpoint {
		t.Fatalf("the writer's automatic checkpoint is at %d pages (%v), want %d", auto, err, writerAutoCheckpoint)
	}

	acc, err := s.CreateAccount(t.Context(), store.NewAccount{Email: "wal@example.com", Name: "W", PasswordHash: "h", Limits: domain.Limits{MonthlyConversations: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// The database file alone, copied without its WAL, holds the account
	// once a checkpoint has run.
	inFile := func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(cp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+cp+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		db.QueryRow(`SELECT count(*) FROM accounts WHERE id = ?`, acc.ID).Scan(&n)
		return n == 1
	}
	for deadline := time.Now().Add(10 * time.Second); !inFile(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the account never reached the database file: no checkpoint ran")
		}
	}
}
