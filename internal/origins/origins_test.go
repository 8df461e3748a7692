package origins_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/origins"
	"parley/internal/store"
	"parley/internal/store/sqlite/sqlitetest"
)

// countingStore counts RecordOrigin calls over a real store, and can fail
// them.
type countingStore struct {
	store.Origins
	mu     sync.Mutex
	writes int
	fail   bool
}

func (c *countingStore) RecordOrigin(ctx context.Context, o store.SeenOrigin) error {
	c.mu.Lock()
	c.writes++
	fail := c.fail
	c.mu.Unlock()
	if fail {
		return errors.New("down")
	}
	return c.Origins.RecordOrigin(ctx, o)
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }

func list(t *testing.T, st store.Origins, ag domain.Agent) map[string]store.SeenOrigin {
	t.Helper()
	rows, err := st.RecentOrigins(context.Background(), ag.AccountID, ag.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]store.SeenOrigin{}
	for _, r := range rows {
		m[r.Origin] = r
	}
	return m
}

// The first request from an origin is written at once; the next ones
// within the interval only counted, then added with the next write after
// it, or by Flush.
func TestRecorderCoalesces(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	cs := &countingStore{Origins: st}
	c := &clock{time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	r := origins.NewRecorder(origins.RecorderOptions{Store: cs, Now: c.now})
	ctx := context.Background()

	r.Seen(ctx, ag.ID, "https://shop.example")
	if got := list(t, st, ag)["https://shop.example"]; got.Count != 1 || !got.LastSeen.Equal(c.t) {
		t.Fatalf("first request: %+v", got)
	}
	for range 5 {
		c.add(time.Minute)
		r.Seen(ctx, ag.ID, "https://shop.example")
	}
	if cs.writes != 1 {
		t.Fatalf("%d writes within the interval, want 1", cs.writes)
	}
	if got := list(t, st, ag)["https://shop.example"]; got.Count != 1 {
		t.Fatalf("counted before the interval: %+v", got)
	}
	c.add(origins.DefaultInterval)
	r.Seen(ctx, ag.ID, "https://shop.example")
	got := list(t, st, ag)["https://shop.example"]
	if cs.writes != 2 || got.Count != 7 || !got.LastSeen.Equal(c.t) {
		t.Fatalf("after the interval: %d writes, %+v", cs.writes, got)
	}
	c.add(time.Minute)
	r.Seen(ctx, ag.ID, "https://shop.example")
	r.Seen(ctx, ag.ID, "https://shop.example")
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := list(t, st, ag)["https://shop.example"]; got.Count != 9 || !got.LastSeen.Equal(c.t) {
		t.Fatalf("after Flush: %+v", got)
	}
	writes := cs.writes
	if err := r.Flush(ctx); err != nil || cs.writes != writes {
		t.Fatalf("a second Flush wrote %d times (%v)", cs.writes-writes, err)
	}
}

// Absent, "null" and over-long origins are not recorded; a full recorder
// counts no new pair until its old ones are past the interval.
func TestRecorderBounds(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	cs := &countingStore{Origins: st}
	c := &clock{time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	r := origins.NewRecorder(origins.RecorderOptions{Store: cs, Now: c.now, MaxPairs: 2})
	ctx := context.Background()
	for _, o := range []string{"", "null", "https://" + strings.Repeat("a", domain.MaxOriginChars) + ".example"} {
		r.Seen(ctx, ag.ID, o)
	}
	if cs.writes != 0 {
		t.Fatalf("%d writes for origins not worth recording", cs.writes)
	}
	r.Seen(ctx, ag.ID, "https://a.example")
	r.Seen(ctx, ag.ID, "https://b.example")
	r.Seen(ctx, ag.ID, "https://c.example") // full
	if m := list(t, st, ag); len(m) != 2 || cs.writes != 2 {
		t.Fatalf("full recorder: %d writes, %v", cs.writes, m)
	}
	c.add(origins.DefaultInterval)
	r.Seen(ctx, ag.ID, "https://c.example") // the old pairs are swept
	if m := list(t, st, ag); m["https://c.example"].Count != 1 {
		t.Fatalf("after the sweep: %v", m)
	}
}

// A failed write is logged and its count tried again with the next
// request, not lost.
func TestRecorderRetries(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	cs := &countingStore{Origins: st, fail: true}
	c := &clock{time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	r := origins.NewRecorder(origins.RecorderOptions{Store: cs, Now: c.now})
	ctx := context.Background()
	r.Seen(ctx, ag.ID, "https://shop.example")
	cs.fail = false
	c.add(time.Second)
	r.Seen(ctx, ag.ID, "https://shop.example")
	if got := list(t, st, ag)["https://shop.example"]; got.Count != 2 || cs.writes != 2 {
		t.Fatalf("after a failed write: %d writes, %+v", cs.writes, got)
	}
}

// The service marks each origin with the agent's current rule.
func TestServiceMarksAllowed(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	ctx := context.Background()
	now := time.Now().UTC()
	for _, o := range []string{"https://shop.example", "https://www.shop.example", "https://evil.example"} {
		if err := st.RecordOrigin(ctx, store.SeenOrigin{AgentID: ag.ID, Origin: o, Count: 1, LastSeen: now}); err != nil {
			t.Fatal(err)
		}
	}
	svc := origins.NewService(st, nil)
	allowed := func() map[string]bool {
		t.Helper()
		got, err := svc.Recent(ctx, ag.AccountID, ag.ID)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, s := range got {
			m[s.Origin] = s.Allowed
		}
		return m
	}
	if m := allowed(); len(m) != 3 || !m["https://evil.example"] {
		t.Fatalf("no list: %v", m)
	}
	ag.Config.AllowedOrigins = []string{"https://*.shop.example"}
	if _, err := st.UpdateAgent(ctx, ag.AccountID, ag.ID, store.AgentPatch{Config: ag.Config.JSON()}); err != nil {
		t.Fatal(err)
	}
	if m := allowed(); m["https://shop.example"] || !m["https://www.shop.example"] || m["https://evil.example"] {
		t.Fatalf("with a list: %v", m)
	}
	if _, err := svc.Recent(ctx, "acc_other", ag.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account: %v", err)
	}
}
