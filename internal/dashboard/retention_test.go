package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func retentionRoutes(mux *http.ServeMux, d *Dashboard) {
	usageTeamRoutes(mux, d)
	mux.HandleFunc("POST /team/retention", d.requireOwner(d.SetRetention))
}

// TestRetentionSetting: the team page shows the account's retention (keep
// forever by default) and the next purge by the injected clock; an owner
// sets it, a bad value is a 400 with the message and changes nothing, and
// an operator cannot set it.
func TestRetentionSetting(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, retentionRoutes)
	td.d.Retention.Now = func() time.Time { return time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC) }
	owner := td.withSession(td.owner)

	p := owner.get("/team")
	if p.status != http.StatusOK || !strings.Contains(p.body, "Conversations are kept forever.") ||
		!strings.Contains(p.body, `datetime="2026-06-02T03:00:00Z"`) || !strings.Contains(p.body, `name="retention_days"`) {
		t.Fatalf("team page: %d %s", p.status, p.body)
	}
	p = owner.post("/team/retention", url.Values{"retention_days": {"30"}})
	if p.status != http.StatusSeeOther || p.location != "/team?flash=retention.saved" {
		t.Fatalf("set: %d %q", p.status, p.location)
	}
	if days, _ := td.st.RetentionDays(context.Background(), td.owner.AccountID); days != 30 {
		t.Errorf("stored %d days, want 30", days)
	}
	p = owner.get("/team?flash=retention.saved")
	if !strings.Contains(p.body, "Conversations are deleted 30 days after their last message.") || !strings.Contains(p.body, "Data retention saved.") {
		t.Errorf("team page after set: %s", p.body)
	}
	for _, bad := range []string{"-1", "3651", "soon", ""} {
		p := owner.post("/team/retention", url.Values{"retention_days": {bad}})
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Enter 0 (keep forever)") {
			t.Errorf("set %q: %d", bad, p.status)
		}
	}
	if days, _ := td.st.RetentionDays(context.Background(), td.owner.AccountID); days != 30 {
		t.Errorf("a refused value changed the setting to %d", days)
	}
	op := td.newUser("op@example.com", "Oleg Operator", td.owner.AccountID)
	if p := td.withSession(op).post("/team/retention", url.Values{"retention_days": {"0"}}); p.status == http.StatusSeeOther {
		t.Errorf("an operator set the retention: %d", p.status)
	}
	if days, _ := td.st.RetentionDays(context.Background(), td.owner.AccountID); days != 30 {
		t.Errorf("an operator changed the setting to %d", days)
	}
}
