package surge

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/metrics"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
)

// now is the tests' clock: the middle of a month, so every conversation
// below falls in one billing period.
var now = time.Date(2025, time.March, 15, 12, 0, 0, 0, time.UTC)

type account struct {
	st    store.Store
	acc   domain.Account
	agent domain.Agent
}

func newAccount(t *testing.T, st store.Store) account {
	t.Helper()
	ctx := context.Background()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("s", 6) + "@example.com", Name: "S", PasswordHash: "x",
		Limits: domain.Limits{MonthlyConversations: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "B", Key: secret.WidgetKey()})
	if err != nil {
		t.Fatal(err)
	}
	return account{st: st, acc: acc, agent: ag}
}

// start creates n conversations spread evenly over [from, from+span),
// several at a time (the store commits them together).
func (a account) start(t *testing.T, n int, from time.Time, span time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Value
	sem := make(chan struct{}, 32)
	for i := range n {
		at := from.Add(span * time.Duration(i) / time.Duration(n))
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, err := a.st.CreateConversation(context.Background(), store.NewConversation{
				ID: secret.ConversationID(), AgentID: a.agent.ID, AccountID: a.acc.ID, VisitorID: "v", CreatedAt: at,
			})
			if err != nil {
				failed.Store(err)
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/p.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestRule(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	d := New(st, Options{Now: func() time.Time { return now }})
	ctx := context.Background()

	quiet := newAccount(t, st) // no history: the floor decides
	quiet.start(t, Floor-1, now.Add(-Window), Window)
	if s, surging, err := d.Check(ctx, quiet.acc.ID); err != nil || surging || s.Recent != Floor-1 {
		t.Fatalf("%d in 10 minutes, none before: %+v surging %v (%v)", Floor-1, s, surging, err)
	}
	quiet.start(t, 1, now.Add(-time.Minute), time.Minute)
	if s, surging, _ := d.Check(ctx, quiet.acc.ID); !surging || s.Recent != Floor || s.Usual != 0 {
		t.Fatalf("%d in 10 minutes, none before: %+v surging %v, want a surge", Floor, s, surging)
	}

	// A busy account: 5 per 10 minutes over the day before. 40 now is
	// busy, not a surge; 50 (ten times the usual) is.
	busy := newAccount(t, st)
	busy.start(t, 720, now.Add(-Window-Baseline), Baseline)
	busy.start(t, 40, now.Add(-Window), Window)
	if s, surging, _ := d.Check(ctx, busy.acc.ID); surging || s.Recent != 40 || s.Usual != 5 {
		t.Fatalf("busy account, 40 now: %+v surging %v", s, surging)
	}
	busy.start(t, 10, now.Add(-time.Minute), time.Minute)
	if s, surging, _ := d.Check(ctx, busy.acc.ID); !surging || s.Recent != 50 {
		t.Fatalf("busy account, 50 now: %+v surging %v, want a surge", s, surging)
	}
	// Ten minutes later, with nothing new, it is over.
	later := New(st, Options{Now: func() time.Time { return now.Add(Window) }})
	if s, surging, _ := later.Check(ctx, busy.acc.ID); surging || s.Recent != 0 {
		t.Fatalf("ten minutes later: %+v surging %v", s, surging)
	}
}

// Observe checks at most once a minute per account, in the background,
// and reports a surge once: a log line and the metrics.
func TestObserveAlertsOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	tick := func(d time.Duration) { clock.Add(int64(d)) }
	var logs bytes.Buffer
	var mu sync.Mutex
	reg := metrics.NewRegistry()
	d := New(st, Options{
		Now:      func() time.Time { return time.Unix(0, clock.Load()).UTC() },
		Logger:   slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)),
		Registry: reg,
	})
	a := newAccount(t, st)
	observe := func() {
		d.Observe(a.acc.ID)
		d.Wait()
	}
	scrape := func() string {
		var b strings.Builder
		reg.WriteTo(&b)
		return b.String()
	}

	a.start(t, 10, now.Add(-time.Minute), time.Minute)
	observe()
	a.start(t, 40, now.Add(-time.Minute), time.Minute) // the flood starts
	observe()                                          // within the minute: not checked again
	if strings.Contains(logs.String(), "init surge") || !strings.Contains(scrape(), "parley_init_surging_accounts 0") {
		t.Fatalf("checked twice within a minute:\n%s\n%s", logs.String(), scrape())
	}
	tick(time.Minute)
	observe()
	if n := strings.Count(logs.String(), "init surge:"); n != 1 || !strings.Contains(logs.String(), "account_id="+a.acc.ID) {
		t.Fatalf("%d surge lines, want 1:\n%s", n, logs.String())
	}
	if m := scrape(); !strings.Contains(m, "parley_init_surges_total 1") || !strings.Contains(m, "parley_init_surging_accounts 1") {
		t.Fatalf("metrics:\n%s", m)
	}
	tick(time.Minute) // the same surge, still going: not reported again
	a.start(t, 5, now.Add(time.Minute), time.Second)
	observe()
	if n := strings.Count(logs.String(), "init surge:"); n != 1 {
		t.Fatalf("the same surge reported %d times", n)
	}
	// Calm for an hour, then a new flood: a new report.
	tick(time.Hour)
	if m := scrape(); !strings.Contains(m, "parley_init_surging_accounts 0") {
		t.Fatalf("an hour after the surge:\n%s", m)
	}
	a.start(t, 60, time.Unix(0, clock.Load()).Add(-time.Minute), time.Minute)
	observe()
	if n := strings.Count(logs.String(), "init surge:"); n != 2 {
		t.Fatalf("a second surge reported %d times, want 2 lines in all:\n%s", n, logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// A burst is noticed while it lasts: Floor conversations started through
// this instance since the last check make it check again at once, not a
// minute later; an account whose last check counted many needs a tenth as
// many new ones.
func TestObserveNoticesABurst(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	var logs bytes.Buffer
	var mu sync.Mutex
	reg := metrics.NewRegistry()
	d := New(st, Options{Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)), Registry: reg})
	a := newAccount(t, st)
	d.Observe(a.acc.ID) // the first: checked (nothing yet)
	d.Wait()
	a.start(t, Floor, now.Add(-time.Second), time.Second)
	for range Floor - 1 {
		d.Observe(a.acc.ID)
	}
	d.Wait()
	if strings.Contains(logs.String(), "init surge:") {
		t.Fatal("checked before the burst reached the floor")
	}
	d.Observe(a.acc.ID) // the 30th since the last check, the same instant
	d.Wait()
	var m strings.Builder
	reg.WriteTo(&m)
	if !strings.Contains(logs.String(), "init surge:") || !strings.Contains(m.String(), "parley_init_surges_total 1") {
		t.Fatalf("a burst of %d in one second was not reported:\n%s\n%s", Floor, logs.String(), m.String())
	}
	// The last check counted Floor+1 (a few dozen): the next burst check
	// also needs Floor more; with 400 counted it would need 40.
	d.mu.Lock()
	st400 := d.checked[a.acc.ID]
	st400.recent, st400.since = 400, 0
	d.checked[a.acc.ID] = st400
	d.mu.Unlock()
	for range 39 {
		d.Observe(a.acc.ID)
	}
	d.Wait()
	d.mu.Lock()
	since := d.checked[a.acc.ID].since
	d.mu.Unlock()
	if since != 39 {
		t.Fatalf("a check started within 39 of an account that had 400 (since = %d)", since)
	}
	d.Observe(a.acc.ID) // the 40th: a tenth of 400
	d.Wait()
	d.mu.Lock()
	since = d.checked[a.acc.ID].since
	d.mu.Unlock()
	if since != 0 {
		t.Fatalf("no check after 40 of an account that had 400 (since = %d)", since)
	}
}
