package agentadmin

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/postgres"
	"parley/internal/store/sqlite"
	"parley/internal/testsvc"
)

// The rules are tested on the real stores: SQLite in a temporary
// directory, and PostgreSQL in a schema of its own when the test
// environment has a server (testsvc: skipped without one unless
// required). Each store is opened once for the package; tests keep apart
// by working in accounts of their own.

type shared struct {
	once  sync.Once
	st    store.Store
	err   error
	close func()
}

var sqliteStore, postgresStore shared

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range []*shared{&sqliteStore, &postgresStore} {
		if s.close != nil {
			s.close()
		}
	}
	os.Exit(code)
}

func openSQLite() (store.Store, func(), error) {
	dir, err := os.MkdirTemp("", "agentadmin")
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

func openPostgres(base string) (store.Store, func(), error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return nil, nil, err
	}
	schema := strings.ToLower(secret.ID("agentadmin_", 8))
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

// eachStore runs fn on every store, in parallel.
func eachStore(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Helper()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, open := &sqliteStore, openSQLite
			if name == "postgres" {
				url := testsvc.PostgresURL(t) // skips (or fails, when required) without a server
				s, open = &postgresStore, func() (store.Store, func(), error) { return openPostgres(url) }
			}
			s.once.Do(func() { s.st, s.close, s.err = open() })
			if s.err != nil {
				t.Fatalf("open the %s store: %v", name, s.err)
			}
			fn(t, s.st)
		})
	}
}

// recorder is an Invalidate that remembers whom it was told about.
type recorder struct {
	mu  sync.Mutex
	ids []string
}

func (r *recorder) invalidate(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
}

func (r *recorder) told() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// fixture is a Service on st with an account of its own.
type fixture struct {
	t       *testing.T
	st      store.Store
	svc     *Service
	inv     *recorder
	account string
}

func newFixture(t *testing.T, st store.Store, o Options) *fixture {
	t.Helper()
	inv := &recorder{}
	o.Store, o.Invalidate = st, inv.invalidate
	return &fixture{t: t, st: st, svc: New(o), inv: inv, account: newAccount(t, st)}
}

func newAccount(t *testing.T, st store.Store) string {
	t.Helper()
	acc, err := st.CreateAccount(t.Context(), store.NewAccount{
		Email: secret.ID("u", 8) + "@example.com", Name: "Owner", PasswordHash: "x", Limits: domain.DefaultLimits,
	})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return acc.ID
}

// agent creates an agent named name in the fixture's account.
func (f *fixture) agent(name string) domain.Agent {
	f.t.Helper()
	ag, err := f.svc.CreateAgent(f.t.Context(), f.account, NewAgent{Name: name})
	if err != nil {
		f.t.Fatalf("CreateAgent(%q): %v", name, err)
	}
	return ag
}

// keys are the agent's keys, oldest first.
func (f *fixture) keys(agentID string) []domain.WidgetKey {
	f.t.Helper()
	keys, err := f.svc.Keys(f.t.Context(), f.account, agentID)
	if err != nil {
		f.t.Fatalf("Keys: %v", err)
	}
	return keys
}
