package storetest

import (
	"fmt"
	"testing"
	"time"

	"parley/internal/store"
)

// testOrigins: counts add up, the last time seen only moves forward, the
// list is most recent first, bounded to store.MaxSeenOrigins and
// store.SeenOriginsKept, filtered by since and by account.
func testOrigins(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	rec := func(origin string, n int64, at time.Time) {
		t.Helper()
		noErr(t, "RecordOrigin "+origin, s.RecordOrigin(ctx, store.SeenOrigin{AgentID: f.agent.ID, Origin: origin, Count: n, LastSeen: at}))
	}
	list := func(since time.Time) []store.SeenOrigin {
		t.Helper()
		got, err := s.RecentOrigins(ctx, f.account.ID, f.agent.ID, since)
		noErr(t, "RecentOrigins", err)
		return got
	}

	if got := list(time.Time{}); len(got) != 0 {
		t.Fatalf("new agent: %v, want none", got)
	}
	rec("https://shop.example", 3, base)
	rec("https://evil.example", 1, base.Add(time.Minute))
	rec("https://shop.example", 2, base.Add(2*time.Minute))
	rec("https://evil.example", 4, base) // an older time does not move it back
	got := list(time.Time{})
	if len(got) != 2 || got[0].Origin != "https://shop.example" || got[1].Origin != "https://evil.example" {
		t.Fatalf("list: %+v", got)
	}
	if got[0].Count != 5 || got[1].Count != 5 {
		t.Errorf("counts %d, %d; want 5, 5", got[0].Count, got[1].Count)
	}
	sameTime(t, "shop last seen", got[0].LastSeen, base.Add(2*time.Minute))
	sameTime(t, "evil last seen", got[1].LastSeen, base.Add(time.Minute))
	if got[0].AgentID != f.agent.ID {
		t.Errorf("agent id %q", got[0].AgentID)
	}
	if got := list(base.Add(90 * time.Second)); len(got) != 1 || got[0].Origin != "https://shop.example" {
		t.Errorf("since: %+v", got)
	}

	// Another account sees nothing of this agent; an unknown agent records
	// nothing and is no error.
	other := setup(t, s, many)
	if got, err := s.RecentOrigins(ctx, other.account.ID, f.agent.ID, time.Time{}); err != nil || len(got) != 0 {
		t.Errorf("other account: %v, %v", got, err)
	}
	noErr(t, "RecordOrigin unknown agent", s.RecordOrigin(ctx, store.SeenOrigin{AgentID: "ag_nope", Origin: "https://x.example", Count: 1, LastSeen: base}))
	if got, _ := s.RecentOrigins(ctx, other.account.ID, other.agent.ID, time.Time{}); len(got) != 0 {
		t.Errorf("other agent: %v", got)
	}

	// Bounds: only the most recent MaxSeenOrigins stay, and a record drops
	// the rows older than SeenOriginsKept.
	for i := range store.MaxSeenOrigins + 5 {
		rec(fmt.Sprintf("https://s%02d.example", i), 1, base.Add(time.Hour+time.Duration(i)*time.Minute))
	}
	got = list(time.Time{})
	if len(got) != store.MaxSeenOrigins {
		t.Fatalf("after %d origins: %d kept, want %d", store.MaxSeenOrigins+5, len(got), store.MaxSeenOrigins)
	}
	if got[0].Origin != fmt.Sprintf("https://s%02d.example", store.MaxSeenOrigins+4) || got[len(got)-1].Origin != "https://s05.example" {
		t.Errorf("kept %s .. %s", got[0].Origin, got[len(got)-1].Origin)
	}
	late := base.Add(store.SeenOriginsKept + 90*time.Minute)
	rec("https://late.example", 1, late)
	got = list(time.Time{})
	if len(got) != 1 || got[0].Origin != "https://late.example" {
		t.Errorf("after %v: %+v, want only the late one", store.SeenOriginsKept, got)
	}
	for _, g := range got {
		if g.LastSeen.Before(late.Add(-store.SeenOriginsKept)) {
			t.Errorf("kept %s last seen %v", g.Origin, g.LastSeen)
		}
	}
}
