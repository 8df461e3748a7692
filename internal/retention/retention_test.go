package retention_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/jobs"
	"parley/internal/retention"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
	"parley/internal/store/teststores"
)

var stores = teststores.New("retention")

func TestMain(m *testing.M) {
	code := m.Run()
	stores.Close()
	os.Exit(code)
}

var now = time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC)

type account struct {
	id    string
	agent string
}

func newAccount(t *testing.T, st store.Store) account {
	t.Helper()
	ctx := t.Context()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: secret.VisitorID() + "@example.test", Name: "Owner", PasswordHash: "x", Limits: domain.Limits{MonthlyConversations: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Ana", Key: secret.WidgetKey()})
	if err != nil {
		t.Fatal(err)
	}
	return account{id: acc.ID, agent: ag.ID}
}

// conversation starts a conversation at start with one visitor message at last.
func conversation(t *testing.T, st store.Store, a account, start, last time.Time) string {
	t.Helper()
	c, err := st.CreateConversation(t.Context(), store.NewConversation{ID: secret.ConversationID(), AgentID: a.agent, AccountID: a.id,
		VisitorID: secret.VisitorID(), PageURL: "https://example.com/", CreatedAt: start})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.AddMessage(t.Context(), store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: last}); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func exists(t *testing.T, st store.Store, id string) bool {
	t.Helper()
	_, err := st.Conversation(t.Context(), id)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// TestPurge: with the clock at now, an account keeping 30 days loses the
// conversations whose last message is older than 30 days, in batches of
// two, and keeps the recent ones; an account keeping forever and another
// account with a longer setting keep theirs.
func TestPurge(t *testing.T) {
	t.Parallel()
	stores.Each(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		svc := &retention.Service{Store: st, Now: func() time.Time { return now }, Batch: 2}
		month, forever, year := newAccount(t, st), newAccount(t, st), newAccount(t, st)
		if _, err := svc.Set(ctx, month.id, 30); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Set(ctx, year.id, 365); err != nil {
			t.Fatal(err)
		}
		old := now.AddDate(0, 0, -31)
		var gone []string
		for range 5 { // more than two batches
			gone = append(gone, conversation(t, st, month, old, old))
		}
		kept := []string{
			conversation(t, st, month, old, now.AddDate(0, 0, -29)), // old start, recent last message
			conversation(t, st, month, now.Add(-time.Hour), now.Add(-time.Hour)),
			conversation(t, st, forever, old.AddDate(-3, 0, 0), old.AddDate(-3, 0, 0)),
			conversation(t, st, year, old, old),
		}
		n, err := svc.Purge(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(gone) {
			t.Errorf("purged %d, want %d", n, len(gone))
		}
		for _, id := range gone {
			if exists(t, st, id) {
				t.Errorf("old conversation %s is still there", id)
			}
		}
		for _, id := range kept {
			if !exists(t, st, id) {
				t.Errorf("conversation %s was deleted", id)
			}
		}
	})
}

func TestSetBounds(t *testing.T) {
	t.Parallel()
	stores.Each(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		svc := &retention.Service{Store: st, Now: func() time.Time { return now }}
		a := newAccount(t, st)
		got, err := svc.Get(ctx, a.id)
		if err != nil || got.Days != 0 {
			t.Fatalf("default %+v, %v; want 0 days", got, err)
		}
		if want := time.Date(2026, time.June, 2, retention.PurgeHour, 0, 0, 0, time.UTC); !got.NextPurge.Equal(want) {
			t.Errorf("next purge %s, want %s", got.NextPurge, want)
		}
		for _, bad := range []int{-1, retention.MaxDays + 1} {
			var inv *domain.InvalidError
			if _, err := svc.Set(ctx, a.id, bad); !errors.As(err, &inv) {
				t.Errorf("Set(%d): %v, want an InvalidError", bad, err)
			}
		}
		for _, ok := range []int{1, retention.MaxDays, 0} {
			if s, err := svc.Set(ctx, a.id, ok); err != nil || s.Days != ok {
				t.Errorf("Set(%d): %+v, %v", ok, s, err)
			}
		}
		if _, err := svc.Get(ctx, "acc_unknown"); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("Get of an unknown account: %v", err)
		}
	})
}

func TestNextPurge(t *testing.T) {
	t.Parallel()
	day := func(d, h, m int) time.Time { return time.Date(2026, time.June, d, h, m, 0, 0, time.UTC) }
	for _, tt := range []struct{ at, want time.Time }{
		{day(1, 0, 0), day(1, retention.PurgeHour, 0)},
		{day(1, retention.PurgeHour, 0), day(2, retention.PurgeHour, 0)},
		{day(1, 23, 59), day(2, retention.PurgeHour, 0)},
	} {
		if got := retention.NextPurge(tt.at); !got.Equal(tt.want) {
			t.Errorf("NextPurge(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
}

// TestPurgeOnQueue: the job queue runs the purge (at start, as a new
// leader does) on the same SQLite database as the store.
func TestPurgeOnQueue(t *testing.T) {
	t.Parallel()
	path := sqlitetest.Path(t)
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := newAccount(t, st)
	svc := &retention.Service{Store: st, Now: func() time.Time { return now }}
	if _, err := svc.Set(t.Context(), a.id, 7); err != nil {
		t.Fatal(err)
	}
	old := conversation(t, st, a, now.AddDate(0, 0, -8), now.AddDate(0, 0, -8))
	recent := conversation(t, st, a, now, now)

	q, err := jobs.Open(t.Context(), jobs.Options{DB: path, PollInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler), Purge: svc.Run, PurgeNext: retention.NextPurge})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(45 * time.Second)
	for exists(t, st, old) {
		if time.Now().After(deadline) {
			t.Fatal("the queue did not purge the old conversation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !exists(t, st, recent) {
		t.Error("the queue purged the recent conversation")
	}
}
