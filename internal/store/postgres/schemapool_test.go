package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// Creating, migrating and dropping a schema costs 0.2–1 s on the 2-core CI
// machine, and the contract suite opens a store for each of its ~50
// subtests. emptyStoreURL instead hands each test a migrated schema from a
// pool: when a test ends its rows are deleted (a few milliseconds) and the
// schema goes back for the next test. A schema serves one test at a time,
// so parallel tests never see each other's rows; there are only as many
// schemas as tests ran at once. TestMain drops them at the end.

var schemaPool struct {
	mu   sync.Mutex
	base string   // the server's URL
	free []string // migrated, empty, unused
	all  []string // every pool schema, to drop
}

// emptyStoreURL returns the URL of a migrated schema with no rows, used by
// this test alone until it ends.
func emptyStoreURL(t testing.TB) string {
	t.Helper()
	base := serverURL(t)
	p := &schemaPool
	p.mu.Lock()
	p.base = base
	var schema string
	if n := len(p.free); n > 0 {
		schema, p.free = p.free[n-1], p.free[:n-1]
	}
	p.mu.Unlock()
	if schema == "" {
		schema = newPoolSchema(t, base)
	}
	// Registered before the test opens its store, so it runs after the
	// store's Close (cleanups run last-in first-out).
	t.Cleanup(func() {
		if err := emptySchema(context.Background(), base, schema); err != nil {
			t.Errorf("emptying schema %s for the next test: %v", schema, err)
			return // not reused; TestMain drops it
		}
		p.mu.Lock()
		p.free = append(p.free, schema)
		p.mu.Unlock()
	})
	return withSearchPath(t, base, schema)
}

// newPoolSchema creates a schema and migrates it (by opening a store in
// it, as production does).
func newPoolSchema(t testing.TB, base string) string {
	t.Helper()
	schema := createSchema(t, base, "pool_")
	schemaPool.mu.Lock()
	schemaPool.all = append(schemaPool.all, schema)
	schemaPool.mu.Unlock()
	s, err := Open(t.Context(), withSearchPath(t, base, schema))
	if err != nil {
		t.Fatalf("migrating schema %s: %v", schema, err)
	}
	s.Close()
	return schema
}

// emptySchema deletes every row of every table in schema but
// schema_migrations, in one transaction, each table after the tables that
// reference it. The tables are read from the catalogue, so a table a new
// migration adds is emptied too.
func emptySchema(ctx context.Context, base, schema string) error {
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `
		SELECT c.relname,
		       coalesce(array_agg(DISTINCT r.relname) FILTER (WHERE r.relname IS NOT NULL AND r.oid <> c.oid), '{}')
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_constraint f ON f.confrelid = c.oid AND f.contype = 'f'
		LEFT JOIN pg_class r ON r.oid = f.conrelid
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migrations'
		GROUP BY c.relname`, schema)
	if err != nil {
		return err
	}
	referrers := map[string][]string{} // table → the tables whose foreign keys point at it
	for rows.Next() {
		var table string
		var refs []string
		if err := rows.Scan(&table, &refs); err != nil {
			return err
		}
		referrers[table] = refs
	}
	if err := rows.Err(); err != nil {
		return err
	}
	order, err := childrenFirst(referrers)
	if err != nil {
		return err
	}
	batch := &pgx.Batch{}
	for _, table := range order {
		batch.Queue(`DELETE FROM ` + pgx.Identifier{schema, table}.Sanitize())
	}
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return tx.SendBatch(ctx, batch).Close() })
}

// childrenFirst orders the tables so each comes after every table that
// references it.
func childrenFirst(referrers map[string][]string) ([]string, error) {
	var order []string
	done := map[string]bool{}
	tables := make([]string, 0, len(referrers))
	for t := range referrers {
		tables = append(tables, t)
	}
	slices.Sort(tables)
	for len(order) < len(tables) {
		progress := false
		for _, t := range tables {
			if done[t] || slices.ContainsFunc(referrers[t], func(r string) bool { return !done[r] }) {
				continue
			}
			order, done[t], progress = append(order, t), true, true
		}
		if !progress {
			return nil, fmt.Errorf("foreign keys form a cycle among %v", tables)
		}
	}
	return order, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	p := &schemaPool
	if len(p.all) > 0 {
		ctx := context.Background()
		if admin, err := pgx.Connect(ctx, p.base); err == nil {
			for _, schema := range p.all {
				admin.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
			}
			admin.Close(ctx)
		}
	}
	os.Exit(code)
}

// TestEmptySchema: a pool schema goes back with no row in any table (the
// catalogue's list, so a table a new migration adds is covered), its
// migrations kept, and takes new rows again.
func TestEmptySchema(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	base := serverURL(t)
	schema := newPoolSchema(t, base)
	url := withSearchPath(t, base, schema)
	s := open(t, url)
	fillEveryTable(t, s)
	migrated := appliedMigrations(t, s)
	s.Close()
	if err := emptySchema(ctx, base, schema); err != nil {
		t.Fatal(err)
	}
	s = open(t, url)
	rows, err := s.pool.Query(ctx, `SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'r' AND relname <> 'schema_migrations'`, schema)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 10 {
		t.Fatalf("tables %v, %v", tables, err)
	}
	for _, table := range tables {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s holds %d rows (%v) after emptying", table, n, err)
		}
	}
	if got := appliedMigrations(t, s); !slices.Equal(got, migrated) {
		t.Errorf("migrations %v after emptying, want %v", got, migrated)
	}
	fillEveryTable(t, s) // the same emails and keys are free again
}

// fillEveryTable writes at least one row to each of the store's tables.
func fillEveryTable(t *testing.T, s *Store) {
	t.Helper()
	ctx := t.Context()
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "fill@example.com", PasswordHash: "h", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIToken(ctx, acc.ID, "t", []byte("fill-token-hash")); err != nil {
		t.Fatal(err)
	}
	ag, err := s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Key: "wk_fill",
		Knowledge: []domain.KnowledgeEntry{{Question: "q", Answer: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := s.CreateConversation(ctx, store.NewConversation{AgentID: ag.ID, AccountID: acc.ID, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	owner, err := s.UserByEmail(ctx, "fill@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, owner.ID, []byte("fill-session-hash"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}
