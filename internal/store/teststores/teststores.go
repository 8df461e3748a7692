// Package teststores gives a package's tests the two real stores, each
// opened once for the whole package: SQLite in a temporary directory, and
// PostgreSQL in a schema of its own when the test environment has a server
// (testsvc: skipped without one unless required). Tests keep apart by
// working in accounts of their own. Services with rules in front of the
// store (agentadmin, sources) test those rules on both databases through
// it.
//
// Usage:
//
//	var stores = teststores.New("agentadmin")
//	func TestMain(m *testing.M) { code := m.Run(); stores.Close(); os.Exit(code) }
//	stores.Each(t, func(t *testing.T, st store.Store) { … })
package teststores

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/postgres"
	"parley/internal/store/sqlite"
	"parley/internal/testsvc"
)

// Stores is a package's pair of shared stores.
type Stores struct {
	prefix           string
	sqlite, postgres shared
}

type shared struct {
	once  sync.Once
	st    store.Store
	err   error
	close func()
}

// New returns the stores of a package; prefix names its temporary
// directory and PostgreSQL schema.
func New(prefix string) *Stores { return &Stores{prefix: prefix} }

// Each runs fn on every store, in parallel subtests named "sqlite" and
// "postgres".
func (s *Stores) Each(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Helper()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sh, open := &s.sqlite, s.openSQLite
			if name == "postgres" {
				url := testsvc.PostgresURL(t) // skips (or fails, when required) without a server
				sh, open = &s.postgres, func() (store.Store, func(), error) { return s.openPostgres(url) }
			}
			sh.once.Do(func() { sh.st, sh.close, sh.err = open() })
			if sh.err != nil {
				t.Fatalf("open the %s store: %v", name, sh.err)
			}
			fn(t, sh.st)
		})
	}
}

// Close closes the stores that were opened (call it from TestMain after
// the tests ran) and removes what they left.
func (s *Stores) Close() {
	for _, sh := range []*shared{&s.sqlite, &s.postgres} {
		if sh.close != nil {
			sh.close()
		}
	}
}

func (s *Stores) openSQLite() (store.Store, func(), error) {
	dir, err := os.MkdirTemp("", s.prefix)
	if err != nil {
		return nil, nil, err
	}
	st, err := sqlite.Open(context.Background(), dir+"/p.db")
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return st, func() { st.Close(); os.RemoveAll(dir) }, nil
}

func (s *Stores) openPostgres(base string) (store.Store, func(), error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return nil, nil, err
	}
	schema := strings.ToLower(secret.ID(s.prefix+"_", 8))
	drop := func() {
		conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		conn.Close(context.Background())
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		drop()
		return nil, nil, err
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	st, err := postgres.Open(ctx, base+sep+"search_path="+schema)
	if err != nil {
		drop()
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	return st, func() { st.Close(); drop() }, nil
}
