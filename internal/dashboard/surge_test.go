package dashboard

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/surge"
)

// While an account gets far more new conversations than usual, every page
// of its users carries the banner; other accounts' pages do not.
func TestSurgeBanner(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	now := time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)
	var clock atomic.Int64 // read by the server's goroutines
	clock.Store(now.UnixNano())
	td.d.Surges = surge.New(td.st, surge.Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }})
	other := td.newUser("calm@example.com", "Calm", "")
	owner, calm := td.signedIn(td.owner), td.signedIn(other)

	if p := owner.get("/inbox"); strings.Contains(p.body, `class="warning surge"`) {
		t.Fatal("a banner without a surge")
	}
	for i := range surge.Floor {
		_, err := td.st.CreateConversation(context.Background(), store.NewConversation{
			ID: secret.ConversationID(), AgentID: td.agent.ID, AccountID: td.owner.AccountID, VisitorID: "v",
			CreatedAt: now.Add(-time.Duration(i+1) * 10 * time.Second),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"/inbox", "/account/password"} {
		p := owner.get(path)
		if !strings.Contains(p.body, `<p class="warning surge" role="alert">Unusually many new conversations: 30 in the last 10 minutes, against about 0 usually.`) {
			t.Fatalf("%s has no surge banner", path)
		}
	}
	if p := calm.get("/inbox"); strings.Contains(p.body, `class="warning surge"`) {
		t.Fatal("another account's page shows the banner")
	}
	// Ten minutes on, with nothing new, it is gone.
	clock.Add(int64(surge.Window))
	if p := owner.get("/inbox"); strings.Contains(p.body, `class="warning surge"`) {
		t.Fatal("the banner outlived the surge")
	}
}
