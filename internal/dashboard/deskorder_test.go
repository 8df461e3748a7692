package dashboard

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The desk's list goes by latest activity (issue 19): a new message in an
// old conversation brings it to the top, the list beside an open
// conversation alike, and its time is the activity's. The waiting rows
// pinned on top go longest waiting first, each with how long it has waited
// since its wait began, which the visitor writing again does not restart;
// the waiting view is the same queue. On an injected clock.
func TestDeskOrder(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := context.Background()
	// About now, so that the session stays valid on the dashboard's clock.
	t0 := time.Now().UTC().Truncate(time.Minute).Add(-35 * time.Minute)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	conv := func(minutes int) string {
		t.Helper()
		c, err := td.st.CreateConversation(ctx, store.NewConversation{AgentID: td.agent.ID, AccountID: td.owner.AccountID,
			VisitorID: "v_" + time.Duration(minutes).String(), CreatedAt: at(minutes)})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	say := func(id string, role domain.Role, minutes int, wait bool) {
		t.Helper()
		_, _, err := td.st.AddMessage(ctx, store.NewMessage{ConversationID: id, Role: role, Text: "message at " + at(minutes).Format("15:04"),
			CreatedAt: at(minutes), SetWaiting: wait})
		if err != nil {
			t.Fatal(err)
		}
	}
	old := conv(0)
	say(old, domain.RoleVisitor, 1, false)
	mid := conv(2)
	newest := conv(3)
	// Waiting since t0+5 min, and the visitor wrote again at t0+20.
	waitA := conv(4)
	say(waitA, domain.RoleAI, 5, true)
	say(waitA, domain.RoleVisitor, 20, false)
	// Started an hour earlier, waiting since t0+1: the longest.
	waitB := conv(-60)
	say(waitB, domain.RoleAI, 1, true)
	// The oldest conversation gets a message: it leads the list.
	say(old, domain.RoleVisitor, 30, false)
	td.d.Now = func() time.Time { return at(35) }

	rowIDs := func(body, tbody string) []string {
		t.Helper()
		m := regexp.MustCompile(`(?s)<tbody` + tbody + `>(.*?)</tbody>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no <tbody%s> in %s", tbody, body)
		}
		var out []string
		for _, r := range regexp.MustCompile(`<tr data-id="([^"]+)"`).FindAllStringSubmatch(m[1], -1) {
			out = append(out, r[1])
		}
		return out
	}
	waited := func(body, id string) string {
		t.Helper()
		row := regexp.MustCompile(`(?s)<tr data-id="` + id + `".*?</tr>`).FindString(body)
		return regexp.MustCompile(`<span class="waited">([^<]*)</span>`).FindStringSubmatch(row + `<span class="waited">none</span>`)[1]
	}
	owner := td.signedIn(td.owner)
	for _, path := range []string{"/inbox", "/inbox?partial=1", "/conversations/" + mid} {
		body := owner.get(path).body
		if got, want := rowIDs(body, ` class="pinned"[^>]*`), []string{waitB, waitA}; !slices.Equal(got, want) {
			t.Errorf("%s: pinned %v, want the longest waiting first %v", path, got, want)
		}
		if got, want := rowIDs(body, ``), []string{old, newest, mid}; !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want latest activity first %v", path, got, want)
		}
		if a, b := waited(body, waitA), waited(body, waitB); a != "for 30 min" || b != "for 34 min" {
			t.Errorf("%s: waited %q and %q, want for 30 min (since its wait began, not its last message) and for 34 min", path, a, b)
		}
		if !strings.Contains(body, `<time datetime="`+at(30).Format(time.RFC3339)+`">`+at(30).Format("2006-01-02 15:04")+`</time>`) {
			t.Errorf("%s: the moved row does not show its latest activity's time", path)
		}
	}
	// The waiting view is the queue itself, longest first.
	body := owner.get("/inbox?view=waiting").body
	if got, want := rowIDs(body, ` class="pinned"[^>]*`), []string{waitB, waitA}; !slices.Equal(got, want) {
		t.Errorf("the waiting view: %v, want %v", got, want)
	}
	// A cursor of the list kept from before (by start) sends back to the
	// first page rather than failing.
	byStart, err := td.st.Conversations(ctx, td.owner.AccountID, store.ConversationFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p := owner.get("/inbox?cursor=" + byStart.Next); p.status != 303 || p.location != "/inbox" {
		t.Errorf("an older cursor: %d to %q, want back to the inbox's first page", p.status, p.location)
	}
}
