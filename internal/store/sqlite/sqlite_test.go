package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/storetest"
	"parley/internal/testsvc"
)

// openCopy is openTemp on a copy of a database migrated once per test
// binary (testsvc.CopyOf): an eighth of the time under -race.
func openCopy(t testing.TB) *Store {
	t.Helper()
	path := testsvc.CopyOf(t, "sqlite", "parley.db", func(path string) error {
		s, err := Open(context.Background(), path)
		if err != nil {
			return err
		}
		return s.Close()
	})
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store { return openCopy(t) })
}

func TestOpenPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{
		"sqlite:" + filepath.Join(dir, "prefixed.db"),
		filepath.Join(dir, "new", "nested", "dir.db"),
		filepath.Join(dir, "odd name #1 ?x=%20.db"),
	} {
		s, err := Open(t.Context(), p)
		if err != nil {
			t.Fatalf("Open(%q): %v", p, err)
		}
		if err := s.Ping(t.Context()); err != nil {
			t.Errorf("Ping(%q): %v", p, err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close(%q): %v", p, err)
		}
	}
	if _, err := Open(t.Context(), "sqlite:"); err == nil {
		t.Error("Open of an empty path succeeded")
	}
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	check := func(name, pragma, want string) {
		t.Helper()
		for _, h := range []struct {
			what string
			q    func(string) (string, error)
		}{
			{"writer", func(p string) (v string, err error) { err = s.w.QueryRow("PRAGMA " + p).Scan(&v); return }},
			{"reader", func(p string) (v string, err error) { err = s.r.QueryRow("PRAGMA " + p).Scan(&v); return }},
		} {
			got, err := h.q(pragma)
			if err != nil {
				t.Fatalf("%s PRAGMA %s: %v", h.what, pragma, err)
			}
			if !strings.EqualFold(got, want) {
				t.Errorf("%s %s = %s, want %s", h.what, name, got, want)
			}
		}
	}
	check("journal mode", "journal_mode", "wal")
	check("synchronous", "synchronous", "2") // FULL
	check("foreign keys", "foreign_keys", "1")
	check("busy timeout", "busy_timeout", "10000")

	if _, err := s.r.Exec(`DELETE FROM accounts`); err == nil {
		t.Error("the read pool accepted a write")
	}
}

func TestPersistsAcrossReopen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "data", "parley.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com", Name: "A", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	key := secret.WidgetKey()
	ag, err := s.CreateAgent(ctx, store.NewAgent{
		AccountID: acc.ID, ChatbotName: "Bot", Config: json.RawMessage(`{"a":1}`), Key: key,
		Knowledge: []domain.KnowledgeEntry{{Question: "q", Answer: "a"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := s.CreateConversation(ctx, store.NewConversation{
		ID: secret.ConversationID(), AgentID: ag.ID, AccountID: acc.ID, VisitorID: secret.VisitorID(),
		CreatedAt: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []domain.Message
	for _, text := range []string{"one", "two", "three"} {
		m, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if _, err := s.SetMode(ctx, conv.ID, domain.ModeHuman); err != nil {
		t.Fatal(err)
	}
	migrated := appliedMigrations(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if got := appliedMigrations(t, s); !slices.Equal(got, migrated) {
		t.Errorf("migrations after reopen = %v, want %v (unchanged)", got, migrated)
	}
	if got, err := s.AccountByEmail(ctx, "A@example.com"); err != nil || got != acc {
		t.Errorf("account = %+v, %v; want %+v", got, err, acc)
	}
	if got, err := s.AgentByKey(ctx, key); err != nil || got.ID != ag.ID || string(got.Config.JSON()) != `{"a":1}` {
		t.Errorf("agent = %+v, %v", got, err)
	}
	if kb, err := s.Knowledge(ctx, ag.ID); err != nil || len(kb) != 1 {
		t.Errorf("knowledge = %+v, %v", kb, err)
	}
	got, err := s.Conversation(ctx, conv.ID)
	if err != nil || got.Mode != domain.ModeHuman || got.LastMessage != "three" {
		t.Errorf("conversation = %+v, %v", got, err)
	}
	if p, err := s.LatestMessages(ctx, conv.ID, 0, 0); err != nil || !slices.Equal(p.Messages, msgs) || p.More {
		t.Errorf("messages = %+v, %v; want %+v", p, err, msgs)
	}
	if u, err := s.Usage(ctx, acc.ID, conv.CreatedAt.Format("2006-01")); err != nil || u.Conversations != 1 {
		t.Errorf("usage = %+v, %v", u, err)
	}
	// Sequence numbers keep growing after a reopen.
	m, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "four"})
	if err != nil || m.Seq <= msgs[len(msgs)-1].Seq {
		t.Errorf("message after reopen: seq %d, %v", m.Seq, err)
	}
}

// appliedMigrations lists schema_migrations as "version name applied_at".
func appliedMigrations(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.Query(`SELECT version || ' ' || name || ' ' || applied_at FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	t.Run("embedded", func(t *testing.T) {
		ms, err := loadMigrations(migrationFiles())
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 || ms[0].version != 1 {
			t.Fatalf("embedded migrations = %+v", ms)
		}
		s := openTemp(t)
		if got := appliedMigrations(t, s); len(got) != len(ms) {
			t.Errorf("applied %v, want %d migrations", got, len(ms))
		}
		// Running again is a no-op.
		if err := migrate(ctx, s.w, migrationFiles()); err != nil {
			t.Errorf("second migrate: %v", err)
		}
		if got := appliedMigrations(t, s); len(got) != len(ms) {
			t.Errorf("after second migrate %v", got)
		}
	})

	t.Run("order and failure", func(t *testing.T) {
		s := openTemp(t) // schema_migrations exists, the embedded ones applied
		fsys := fstest.MapFS{
			// Listed out of order on purpose: versions decide.
			"9003_b.sql": {Data: []byte(`INSERT INTO t (v) VALUES ('three');`)},
			"9002_a.sql": {Data: []byte(`CREATE TABLE t (v TEXT); INSERT INTO t (v) VALUES ('two');`)},
			"9004_bad.sql": {Data: []byte(`INSERT INTO t (v) VALUES ('four');
				THIS IS NOT SQL;`)},
		}
		// The embedded set is needed so the newest-version check passes;
		// copy it in.
		embedded, _ := loadMigrations(migrationFiles())
		for _, m := range embedded {
			fsys[m.name] = &fstest.MapFile{Data: []byte(m.sql)}
		}

		err := migrate(ctx, s.w, fsys)
		if err == nil || !strings.Contains(err.Error(), "9004_bad.sql") {
			t.Fatalf("migrate = %v, want a failure naming 9004_bad.sql", err)
		}
		var got []string
		rows, err := s.r.Query(`SELECT v FROM t ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			rows.Scan(&v)
			got = append(got, v)
		}
		rows.Close()
		if want := []string{"two", "three"}; !slices.Equal(got, want) {
			t.Errorf("rows = %v, want %v: 9004 must roll back whole", got, want)
		}
		var versions []int
		rows, _ = s.r.Query(`SELECT version FROM schema_migrations ORDER BY version`)
		for rows.Next() {
			var v int
			rows.Scan(&v)
			versions = append(versions, v)
		}
		rows.Close()
		if want := append(embeddedVersions(embedded), 9002, 9003); !slices.Equal(versions, want) {
			t.Errorf("versions = %v, want %v", versions, want)
		}

		// Fixed, it applies on the next run; the earlier ones are skipped.
		fsys["9004_bad.sql"] = &fstest.MapFile{Data: []byte(`INSERT INTO t (v) VALUES ('four');`)}
		if err := migrate(ctx, s.w, fsys); err != nil {
			t.Fatalf("migrate after fix: %v", err)
		}
		var n int
		s.r.QueryRow(`SELECT count(*) FROM t`).Scan(&n)
		if n != 3 {
			t.Errorf("%d rows after the fix, want 3", n)
		}

		// The embedded set alone is older than this database now.
		if err := migrate(ctx, s.w, migrationFiles()); err == nil {
			t.Error("migrate with older migrations than the database succeeded")
		}
	})

	t.Run("bad names", func(t *testing.T) {
		for name, fsys := range map[string]fstest.MapFS{
			"no number":    {"init.sql": {Data: []byte(`SELECT 1;`)}},
			"short number": {"1_init.sql": {Data: []byte(`SELECT 1;`)}},
			"same version": {"0001_a.sql": {Data: []byte(`SELECT 1;`)}, "0001_b.sql": {Data: []byte(`SELECT 1;`)}},
		} {
			if _, err := loadMigrations(fsys); err == nil {
				t.Errorf("%s: loadMigrations succeeded", name)
			}
		}
	})
}

func TestBadCursor(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	_, err := s.Conversations(t.Context(), "acc", store.ConversationFilter{Before: "garbage!"})
	if !errors.Is(err, store.ErrBadCursor) || errors.Is(err, domain.ErrNotFound) {
		t.Errorf("error %v, want ErrBadCursor", err)
	}
}

func BenchmarkAddMessage(b *testing.B) {
	f := newConvFixture(b)
	for b.Loop() {
		if _, _, err := f.s.AddMessage(b.Context(), store.NewMessage{
			ConversationID: f.conv.ID, Role: domain.RoleAI, Text: "a typical reply of some length", RequireMode: domain.ModeAI,
			MaxMessages: benchCap,
		}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateConversation(b *testing.B) {
	f := newAgentFixture(b)
	for b.Loop() {
		f.newConversation(b)
	}
}

func embeddedVersions(ms []migration) []int {
	var v []int
	for _, m := range ms {
		v = append(v, m.version)
	}
	return v
}

// Writes that share a group commit stay independent: one failing (or
// panicking) write leaves the others committed, and each caller learns its
// own outcome.
func TestGroupCommitIsolatesWrites(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	ctx := t.Context()
	if _, err := s.w.Exec(`CREATE TABLE gc (v INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 300)
	for i := range 300 {
		wg.Go(func() {
			errs[i] = s.write(ctx, func(tx *sql.Tx) error {
				if _, err := tx.Exec(`INSERT INTO gc (v) VALUES (?)`, i); err != nil {
					return err
				}
				switch i % 10 {
				case 3:
					return errors.New("refused")
				case 7:
					panic("boom")
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i%10 == 3 || i%10 == 7) != (err != nil) {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	var n int
	s.r.QueryRow(`SELECT count(*) FROM gc WHERE v % 10 IN (3, 7)`).Scan(&n)
	var all int
	s.r.QueryRow(`SELECT count(*) FROM gc`).Scan(&all)
	if n != 0 || all != 240 {
		t.Fatalf("%d rows of failed writes kept, %d rows in all; want 0 and 240", n, all)
	}
	// After Close, writes are refused rather than lost silently.
	s.Close()
	if err := s.write(ctx, func(*sql.Tx) error { return nil }); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}
