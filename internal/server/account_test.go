package server

import (
	"testing"
	"time"
)

// TestAccountRetention: GET /api/v1/account shows retention_days (0 by
// default) and the next purge; PATCH sets it within 0..3650 and refuses
// the rest with a 400 and a JSON error; another account is unaffected.
func TestAccountRetention(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.api("GET", "/api/v1/account", nil)
	if r.status != 200 || r.body["retention_days"] != float64(0) {
		t.Fatalf("GET: %d %s", r.status, r.raw)
	}
	next, err := time.Parse(time.RFC3339, r.str("next_purge_at"))
	if err != nil || !next.After(time.Now()) || next.After(time.Now().Add(25*time.Hour)) {
		t.Errorf("next_purge_at %q: %v", r.str("next_purge_at"), err)
	}
	r = e.api("PATCH", "/api/v1/account", map[string]any{"retention_days": 90})
	if r.status != 200 || r.body["retention_days"] != float64(90) {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	if r := e.api("GET", "/api/v1/account", nil); r.body["retention_days"] != float64(90) {
		t.Errorf("GET after PATCH: %s", r.raw)
	}
	for _, bad := range []any{-1, 3651, "30"} {
		r := e.api("PATCH", "/api/v1/account", map[string]any{"retention_days": bad})
		if r.status != 400 || r.str("error") == "" {
			t.Errorf("PATCH %v: %d %s", bad, r.status, r.raw)
		}
	}
	if r := e.api("GET", "/api/v1/account", nil); r.body["retention_days"] != float64(90) {
		t.Errorf("a refused PATCH changed the setting: %s", r.raw)
	}
	if r := e.do("GET", "/api/v1/account", nil, nil); r.status != 401 {
		t.Errorf("without a token: %d", r.status)
	}
}
