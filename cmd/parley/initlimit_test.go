package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"parley/internal/initlimit"
)

// inOneWindow runs try with a fresh client address until one run starts
// and ends in the same counting window. The limits count in aligned hours
// of the wall clock, which a test of a whole program cannot inject, so a
// run that crosses an hour's end is counted against two windows and says
// nothing; it is run again (at most 3 times) rather than read wrong.
func inOneWindow(t *testing.T, try func(ip string) error) {
	t.Helper()
	for attempt := range 3 {
		start := time.Now().Truncate(initlimit.Window)
		err := try(fmt.Sprintf("203.0.113.%d", 20+attempt))
		if time.Now().Truncate(initlimit.Window).Equal(start) {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Logf("attempt %d crossed the end of a counting window; again from another address", attempt+1)
	}
	t.Fatal("three attempts crossed a window's end")
}

// The whole program with its defaults: the 31st conversation one address
// starts with the demo agent within the hour is refused with a 429
// without limit_reached, and uses none of the allowance; another address
// still gets one.
func TestInitLimitDefaults(t *testing.T) {
	t.Parallel()
	a := startOnTerminal(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_TRUSTED_PROXIES": "127.0.0.1/32", "PARLEY_RATE_LIMIT": "0"})
	key, token := field(t, a.stdout.String(), "Widget key"), field(t, a.stdout.String(), "API token")
	initFrom := func(ip string) (int, map[string]any, http.Header) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"key": key})
		req, _ := http.NewRequest("POST", a.base+"/api/widget/init", bytes.NewReader(b))
		req.Header.Set("X-Forwarded-For", ip)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m, res.Header
	}
	admitted := 0 // every conversation started, which the allowance counts
	inOneWindow(t, func(ip string) error {
		for i := range 30 {
			if status, _, _ := initFrom(ip); status != 200 {
				return fmt.Errorf("init %d: %d", i+1, status)
			}
			admitted++
		}
		status, body, hdr := initFrom(ip)
		if status == 200 {
			admitted++
		}
		if _, has := body["limit_reached"]; status != 429 || has || hdr.Get("Retry-After") == "" || body["error"] == nil {
			return fmt.Errorf("the 31st from one address: %d %v Retry-After %q; want 429 with Retry-After and without limit_reached", status, body, hdr.Get("Retry-After"))
		}
		return nil
	})
	if status, _, _ := initFrom("198.51.100.1"); status != 200 {
		t.Fatalf("another address: %d", status)
	}
	admitted++
	if _, u := get(t, a.base+"/api/v1/usage", token); u["conversations"] != float64(admitted) {
		t.Fatalf("usage %v, want %d conversations", u["conversations"], admitted)
	}
}

// Two instances on one PostgreSQL and one Redis share the counts: 30 from
// one address in all, whichever instance each init reaches.
func TestInitLimitSharedThroughRedis(t *testing.T) {
	t.Parallel()
	db, rdb := postgresURL(t), redisURL(t)
	env := map[string]string{"PARLEY_TRUSTED_PROXIES": "127.0.0.1/32", "PARLEY_RATE_LIMIT": "0", "PARLEY_REDIS_URL": rdb}
	a := start(t, db, env)
	key := field(t, a.stdout.String(), "Widget key")
	env["PARLEY_DEMO"] = "false"
	b := start(t, db, env)
	inOneWindow(t, func(ip string) error {
		ok := 0
		for i := range 40 {
			base := []string{a.base, b.base}[i%2]
			body, _ := json.Marshal(map[string]any{"key": key})
			req, _ := http.NewRequest("POST", base+"/api/widget/init", bytes.NewReader(body))
			req.Header.Set("X-Forwarded-For", ip)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			res.Body.Close()
			switch res.StatusCode {
			case 200:
				ok++
			case 429:
			default:
				return fmt.Errorf("init %d: %d", i+1, res.StatusCode)
			}
		}
		if ok != 30 {
			return fmt.Errorf("%d of 40 inits from one address admitted across two instances, want 30", ok)
		}
		return nil
	})
}
