package sources

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/teststores"
)

// The service is tested on the real stores: SQLite in a temporary
// directory and PostgreSQL in a schema of its own (skipped without a
// server unless required). Each store is opened once; tests keep apart by
// working in accounts of their own.

var stores = teststores.New("sources")

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

// queue is the Queue port as the tests see it: it records what was
// enqueued (the River queue implements it in production; its own tests
// are the jobs package's).
type queue struct {
	mu   sync.Mutex
	ids  []string
	fail error
}

func (q *queue) EnqueueSync(_ context.Context, id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return q.fail
	}
	q.ids = append(q.ids, id)
	return nil
}

func (q *queue) enqueued() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.ids...)
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// fixture is a Service on st with an account and an agent of its own.
type fixture struct {
	t       *testing.T
	st      store.Store
	svc     *Service
	q       *queue
	clock   *clock
	told    chan string // agents whose knowledge index was invalidated
	account string
	agent   string
}

func newFixture(t *testing.T, st store.Store, o Options) *fixture {
	t.Helper()
	f := &fixture{t: t, st: st, q: &queue{}, clock: &clock{t: time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)}, told: make(chan string, 100)}
	o.Store, o.Queue, o.Now = st, f.q, f.clock.now
	o.Logger = slog.New(slog.DiscardHandler)
	o.Invalidate = func(id string) { f.told <- id }
	if o.Guard == nil {
		o.Guard = outbound.New(outbound.Options{AllowPrivate: true}) // the test sites are on 127.0.0.1
	}
	f.svc = New(o)
	f.account, f.agent = newAgent(t, st)
	return f
}

func newAgent(t *testing.T, st store.Store) (account, agent string) {
	t.Helper()
	acc, err := st.CreateAccount(t.Context(), store.NewAccount{
		Email: secret.ID("u", 8) + "@example.com", Name: "Owner", PasswordHash: "x", Limits: domain.DefaultLimits,
	})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	ag, err := st.CreateAgent(t.Context(), store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot",
		Knowledge: []domain.KnowledgeEntry{{Question: "What are your hours?", Answer: "9 to 5."}}})
	if err != nil {
		t.Fatalf("CreateAgent: %v", err)
	}
	return acc.ID, ag.ID
}

// create adds a website source at url.
func (f *fixture) create(url string) domain.Source {
	f.t.Helper()
	src, err := f.svc.Create(f.t.Context(), f.account, f.agent, NewSource{Kind: "website", URL: url})
	if err != nil {
		f.t.Fatalf("Create(%s): %v", url, err)
	}
	return src
}

func (f *fixture) source(id string) domain.Source {
	f.t.Helper()
	src, err := f.st.SourceByID(f.t.Context(), id)
	if err != nil {
		f.t.Fatalf("SourceByID: %v", err)
	}
	return src
}

// entries are what the agent's knowledge index is built from.
func (f *fixture) entries() []domain.KnowledgeEntry {
	f.t.Helper()
	e, err := Knowledge{Store: f.st, MaxChars: f.svc.MaxChars()}.Knowledge(f.t.Context(), f.agent)
	if err != nil {
		f.t.Fatalf("Knowledge: %v", err)
	}
	return e
}

// pageURLs are the URLs of the entries that came from pages.
func (f *fixture) pageURLs() []string {
	var urls []string
	for _, e := range f.entries() {
		if e.URL != "" {
			urls = append(urls, e.URL)
		}
	}
	return urls
}
