package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/storetest"
	"parley/internal/testsvc"
)

// serverURL is the PostgreSQL server the tests use (package testsvc:
// skipped without one unless required).
func serverURL(t testing.TB) string { return testsvc.PostgresURL(t) }

// freshSchema creates an empty schema with a random name and drops it when
// the test ends, and returns a URL that puts the store in it. Each test
// gets its own, so tests (and concurrent runs against one database) never
// see each other's rows.
func freshSchema(t testing.TB) string {
	t.Helper()
	base := serverURL(t)
	schema := createSchema(t, base, "p_")
	// Registered before any store is opened, so it runs after their Close:
	// cleanups run last-in first-out. t.Context() is done by then.
	t.Cleanup(func() {
		ctx := context.Background()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("connect to drop schema %s: %v", schema, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return withSearchPath(t, base, schema)
}

// createSchema creates an empty schema named prefix and 16 random hex
// digits, and returns its name.
func createSchema(t testing.TB, base, prefix string) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	schema := prefix + hex.EncodeToString(b)
	admin, err := pgx.Connect(t.Context(), base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(t.Context(), `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	return schema
}

// withSearchPath adds search_path to a postgres:// URL or a key=value
// connection string.
func withSearchPath(t testing.TB, base, schema string) string {
	t.Helper()
	if !strings.Contains(base, "://") {
		return base + " search_path=" + schema
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("PARLEY_TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func open(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	t.Parallel()
	serverURL(t)
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, emptyStoreURL(t)) })
}

// TestSchemaIsolation: the search_path in the URL decides where the store's
// tables live, so two stores in two schemas of one database are apart.
func TestSchemaIsolation(t *testing.T) {
	t.Parallel()
	a, b := open(t, freshSchema(t)), open(t, freshSchema(t))
	if _, err := a.CreateAccount(t.Context(), store.NewAccount{Email: "a@example.com", Limits: domain.DefaultLimits}); err != nil {
		t.Fatal(err)
	}
	if n, err := b.CountAccounts(t.Context()); err != nil || n != 0 {
		t.Errorf("the other schema counts %d accounts (%v), want 0", n, err)
	}
	var schema string
	if err := a.pool.QueryRow(t.Context(), `SELECT current_schema()`).Scan(&schema); err != nil || !strings.HasPrefix(schema, "p_") {
		t.Errorf("current_schema = %q, %v; want the test's schema", schema, err)
	}
}

// TestAcrossInstances: the quota, the spend cap and TakeOver stay exact
// when the racing requests reach different instances (two pools on one
// schema): the database decides, not any process's memory.
func TestAcrossInstances(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := emptyStoreURL(t)
	instances := []*Store{open(t, url), open(t, url)}
	s := instances[0]
	// 10 included, then overage at 5 cents up to a cap of 50: 20 in all.
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com",
		Limits: domain.Limits{MonthlyConversations: 10, OveragePriceCents: 5, SpendCapCents: 50}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)

	const callers = 60
	var mu sync.Mutex
	var admitted, capped int
	var other []error
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			<-start
			_, err := instances[i%2].CreateConversation(ctx, store.NewConversation{AgentID: ag.ID, AccountID: acc.ID, CreatedAt: at})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				admitted++
			case errors.Is(err, domain.ErrSpendCap):
				capped++
			default:
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if admitted != 20 || capped != 40 || other != nil {
		t.Errorf("admitted %d, capped %d, failed %v; want 20 admitted and 40 refused with ErrSpendCap", admitted, capped, other)
	}
	want := domain.Usage{Period: "2025-03", Conversations: 20, OverageConversations: 10, OverageCents: 50}
	for i, in := range instances {
		if u, err := in.Usage(ctx, acc.ID, "2025-03"); err != nil || u != want {
			t.Errorf("instance %d: Usage = %+v, %v; want %+v", i, u, err, want)
		}
	}

	// Two operators on two instances take over one conversation.
	for round := range 10 {
		c, err := s.CreateConversation(ctx, store.NewConversation{AgentID: ag.ID, AccountID: acc.ID, CreatedAt: at.AddDate(0, 1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		won := make([]bool, 2)
		holders := make([]string, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, in := range instances {
			wg.Go(func() {
				<-start
				conv, w, err := in.TakeOver(ctx, c.ID, fmt.Sprint("usr_", i), fmt.Sprint("Op ", i))
				if err != nil {
					t.Errorf("TakeOver: %v", err)
				}
				won[i], holders[i] = w, conv.AssigneeID
			})
		}
		close(start)
		wg.Wait()
		if won[0] == won[1] || holders[0] != holders[1] || holders[0] == "" {
			t.Errorf("round %d: won %v, holders %v; want one winner both name", round, won, holders)
		}
	}
}

// appliedMigrations lists schema_migrations as "version name applied_at".
func appliedMigrations(t *testing.T, s *Store) []string {
	t.Helper()
	rows, _ := s.pool.Query(t.Context(), `
		SELECT version || ' ' || name || ' ' || applied_at FROM schema_migrations ORDER BY version`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestOpenRace: instances starting together on an empty schema all succeed,
// and the migrations are applied once. Without the advisory lock they would
// collide creating the same tables.
func TestOpenRace(t *testing.T) {
	t.Parallel()
	url := freshSchema(t)
	const instances = 6
	stores := make([]*Store, instances)
	errs := make([]error, instances)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range instances {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = Open(t.Context(), url)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
			continue
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if t.Failed() {
		return
	}
	ms, err := loadMigrations(migrationFiles())
	if err != nil {
		t.Fatal(err)
	}
	if got := appliedMigrations(t, stores[0]); len(got) != len(ms) {
		t.Errorf("applied %v, want each of the %d migrations once", got, len(ms))
	}
	// Every instance works on the one schema.
	for i, s := range stores {
		if _, err := s.CreateAccount(t.Context(), store.NewAccount{Email: secret.ID("race", 4) + "@example.com", Limits: domain.DefaultLimits}); err != nil {
			t.Errorf("instance %d: CreateAccount: %v", i, err)
		}
	}
	if n, err := stores[0].CountAccounts(t.Context()); err != nil || n != instances {
		t.Errorf("CountAccounts = %d, %v; want %d", n, err, instances)
	}
}

// TestReopen: a second Open applies nothing again and finds the data.
func TestReopen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := freshSchema(t)
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com", Name: "A", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Key: secret.WidgetKey()})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := s.CreateConversation(ctx, store.NewConversation{AgentID: ag.ID, AccountID: acc.ID, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "one"})
	if err != nil {
		t.Fatal(err)
	}
	migrated := appliedMigrations(t, s)
	s.Close()

	s = open(t, url)
	if got := appliedMigrations(t, s); !slices.Equal(got, migrated) {
		t.Errorf("migrations after reopen = %v, want %v (unchanged)", got, migrated)
	}
	if got, err := s.AccountByEmail(ctx, "A@example.com"); err != nil || got != acc {
		t.Errorf("account = %+v, %v; want %+v", got, err, acc)
	}
	// Sequence numbers keep growing after a reopen.
	m2, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "two"})
	if err != nil || m2.Seq <= m.Seq {
		t.Errorf("message after reopen: seq %d (before %d), %v", m2.Seq, m.Seq, err)
	}
}

func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	t.Run("not re-applied", func(t *testing.T) {
		s := open(t, freshSchema(t))
		before := appliedMigrations(t, s)
		if len(before) == 0 || !strings.HasPrefix(before[0], "1 0001_") {
			t.Fatalf("applied %v", before)
		}
		if err := migrate(ctx, s.pool, migrationFiles()); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		if got := appliedMigrations(t, s); !slices.Equal(got, before) {
			t.Errorf("after a second migrate %v, want %v", got, before)
		}
	})

	t.Run("order and failure", func(t *testing.T) {
		s := open(t, freshSchema(t))
		fsys := fstest.MapFS{
			// Listed out of order on purpose: versions decide.
			"9003_b.sql": {Data: []byte(`INSERT INTO t (v) VALUES ('three');`)},
			"9002_a.sql": {Data: []byte(`CREATE TABLE t (id serial, v text); INSERT INTO t (v) VALUES ('two');`)},
			"9004_bad.sql": {Data: []byte(`INSERT INTO t (v) VALUES ('four');
				CREATE TABLE u (x int);
				THIS IS NOT SQL;`)},
		}
		// The embedded set is needed so the newest-version check passes.
		embedded, err := loadMigrations(migrationFiles())
		if err != nil {
			t.Fatal(err)
		}
		var versions []int
		for _, m := range embedded {
			fsys[m.name] = &fstest.MapFile{Data: []byte(m.sql)}
			versions = append(versions, m.version)
		}

		err = migrate(ctx, s.pool, fsys)
		if err == nil || !strings.Contains(err.Error(), "9004_bad.sql") {
			t.Fatalf("migrate = %v, want a failure naming 9004_bad.sql", err)
		}
		rows, _ := s.pool.Query(ctx, `SELECT v FROM t ORDER BY id`)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"two", "three"}; !slices.Equal(got, want) {
			t.Errorf("rows = %v, want %v: 9004 must roll back whole", got, want)
		}
		var u *string
		if err := s.pool.QueryRow(ctx, `SELECT to_regclass('u')::text`).Scan(&u); err != nil || u != nil {
			t.Errorf("table u of the failed migration: %v, %v; want none", u, err)
		}
		rows, _ = s.pool.Query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			t.Fatal(err)
		}
		if want := append(versions, 9002, 9003); !slices.Equal(applied, want) {
			t.Errorf("versions = %v, want %v", applied, want)
		}

		// Fixed, it applies on the next run; the earlier ones are skipped.
		fsys["9004_bad.sql"] = &fstest.MapFile{Data: []byte(`INSERT INTO t (v) VALUES ('four');`)}
		if err := migrate(ctx, s.pool, fsys); err != nil {
			t.Fatalf("migrate after fix: %v", err)
		}
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 3 {
			t.Errorf("%d rows after the fix (%v), want 3", n, err)
		}

		// The embedded set alone is older than this database now: Open
		// refuses it, and leaves the lock free for the next attempt.
		for range 2 {
			if s, err := Open(ctx, s.pool.Config().ConnString()); err == nil {
				s.Close()
				t.Error("Open of a database newer than the program succeeded")
			} else if !strings.Contains(err.Error(), "newer") {
				t.Errorf("Open of a newer database: %v", err)
			}
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

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "postgres://127.0.0.1:1/none?connect_timeout=2&sslmode=disable", "not a url ="} {
		if s, err := Open(t.Context(), u); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", u)
		}
	}
}

// TestBadInput: what PostgreSQL's text cannot hold (U+0000, invalid UTF-8) is a
// bad request, not a server error, and a stray cursor is ErrBadCursor.
func TestBadInput(t *testing.T) {
	t.Parallel()
	s := open(t, emptyStoreURL(t))
	ctx := t.Context()
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot"})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := s.CreateConversation(ctx, store.NewConversation{AgentID: ag.ID, AccountID: acc.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"nul \x00 inside", "bad \xff utf-8"} {
		_, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: text})
		var invalid *domain.InvalidError
		if !errors.As(err, &invalid) {
			t.Errorf("AddMessage(%q): %v, want an *InvalidError", text, err)
		}
	}
	for _, bad := range []store.Cursor{
		{At: time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC), ID: "cv_x"},
		{At: time.UnixMilli(0).UTC(), ID: "cv_\x00"},
	} {
		_, err := s.Conversations(ctx, acc.ID, store.ConversationFilter{Before: bad.Encode()})
		if !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("cursor %+v: %v, want ErrBadCursor", bad, err)
		}
	}
}
