package server

import (
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// The management API reads and sets any of the account's users' wait
// alerts (it acts as the account): 0..1440 minutes, required, 404 for a
// user of another account, and mail_enabled false without PARLEY_SMTP_URL.
func TestWaitAlertRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := t.Context()
	u, err := e.store.CreateUser(ctx, store.NewUser{AccountID: e.account.ID, Email: "oleg@example.com", Name: "Oleg", PasswordHash: "h", Role: domain.UserOperator})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/users/" + u.ID + "/wait-alert"
	if r := e.api("GET", path, nil); r.status != 200 || r.body["wait_alert_minutes"] != float64(0) || r.body["user_id"] != u.ID || r.body["mail_enabled"] != false {
		t.Fatalf("GET: %d %s", r.status, r.raw)
	}
	if r := e.api("PUT", path, map[string]any{"wait_alert_minutes": 20}); r.status != 200 || r.body["wait_alert_minutes"] != float64(20) {
		t.Fatalf("PUT: %d %s", r.status, r.raw)
	}
	if r := e.api("GET", path, nil); r.body["wait_alert_minutes"] != float64(20) {
		t.Fatalf("GET after PUT: %s", r.raw)
	}
	for _, bad := range []map[string]any{{}, {"wait_alert_minutes": -1}, {"wait_alert_minutes": 1441}, {"wait_alert_minutes": "5"}} {
		if r := e.api("PUT", path, bad); r.status != 400 || r.str("error") == "" {
			t.Errorf("PUT %v: %d %s", bad, r.status, r.raw)
		}
	}
	if n, _ := e.store.WaitAlert(ctx, e.account.ID, u.ID); n != 20 {
		t.Fatalf("a refused PUT changed the alert: %d", n)
	}
	other, err := e.store.CreateAccount(ctx, store.NewAccount{Email: "else@example.com", Name: "Else", PasswordHash: "h", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := e.store.UserByEmail(ctx, "else@example.com")
	if err != nil || stranger.AccountID != other.ID {
		t.Fatal(err)
	}
	for _, m := range []string{"GET", "PUT"} {
		if r := e.api(m, "/api/v1/users/"+stranger.ID+"/wait-alert", map[string]any{"wait_alert_minutes": 5}); r.status != 404 {
			t.Errorf("%s another account's user: %d %s", m, r.status, r.raw)
		}
	}
	if r := e.api("GET", "/api/v1/users/u_nope/wait-alert", nil); r.status != 404 {
		t.Errorf("GET no user: %d", r.status)
	}
}
