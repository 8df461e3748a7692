package agentadmin

import (
	"os"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/teststores"
)

// The rules are tested on the real stores: SQLite in a temporary
// directory, and PostgreSQL in a schema of its own when the test
// environment has a server (testsvc: skipped without one unless
// required). Each store is opened once for the package; tests keep apart
// by working in accounts of their own.

var stores = teststores.New("agentadmin")

func TestMain(m *testing.M) {
	code := m.Run()
	stores.Close()
	os.Exit(code)
}

// eachStore runs fn on every store, in parallel.
func eachStore(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Helper()
	stores.Each(t, fn)
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
