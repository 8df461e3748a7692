package server

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"parley/internal/domain"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 30})
	conv, _ := e.start() // request 1 from 192.0.2.1
	// All widget routes count together: 29 more mixed requests pass.
	for i := 2; i <= 30; i++ {
		var r response
		switch i % 3 {
		case 0:
			r = e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil)
		case 1:
			r = e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}, nil)
		default:
			r = e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, nil)
		}
		if r.status != 200 {
			t.Fatalf("request %d: %d %s", i, r.status, r.raw)
		}
	}
	// Errors count too, and the 31st is refused whatever the route.
	for _, path := range []string{"/api/widget/init", "/api/widget/chat"} {
		r := e.do("POST", path, map[string]any{"key": e.key}, nil)
		wantError(t, r, 429, "")
		secs, err := strconv.Atoi(r.header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 60 {
			t.Fatalf("Retry-After = %q, want 1..60 seconds", r.header.Get("Retry-After"))
		}
	}
	// Another address has its own budget; non-widget routes are not limited.
	if r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, map[string]string{"remote": "198.51.100.7:1"}); r.status != 200 {
		t.Fatalf("other IP: %d", r.status)
	}
	if r := e.do("GET", "/widget.js", nil, nil); r.status != 200 {
		t.Fatalf("widget.js is rate limited: %d", r.status)
	}
	if r := e.api("GET", "/api/v1/usage", nil); r.status != 200 {
		t.Fatalf("management API is rate limited: %d", r.status)
	}
}

func TestRateLimitIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 30})
	var wg sync.WaitGroup
	statuses := make(chan int, 100)
	for range 100 {
		wg.Go(func() {
			statuses <- e.do("GET", "/api/widget/poll?key=wk_x&conversation_id=cv_x", nil, nil).status
		})
	}
	wg.Wait()
	close(statuses)
	limited := 0
	for s := range statuses {
		if s == 429 {
			limited++
		}
	}
	if limited != 70 {
		t.Fatalf("%d of 100 requests were limited, want exactly 70", limited)
	}
}

func TestRateLimitTrustsOnlyConfiguredProxies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimit: 2, trusted: "10.0.0.0/8"})
	init := func(remote, xff string) int {
		h := map[string]string{"remote": remote}
		if xff != "" {
			h["X-Forwarded-For"] = xff
		}
		return e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, h).status
	}
	// Behind the trusted proxy, clients are told apart by X-Forwarded-For.
	for i := range 3 {
		if s := init("10.0.0.1:1", fmt.Sprintf("203.0.113.%d", i)); s != 200 {
			t.Fatalf("client %d behind the proxy: %d", i, s)
		}
	}
	// An untrusted peer cannot dodge the limit by inventing the header.
	got := []int{init("192.0.2.50:1", "1.1.1.1"), init("192.0.2.50:1", "2.2.2.2"), init("192.0.2.50:1", "3.3.3.3")}
	if got[0] != 200 || got[1] != 200 || got[2] != 429 {
		t.Fatalf("spoofed X-Forwarded-For: statuses %v, want 200 200 429", got)
	}
}

func TestQuotaIsExactUnderConcurrentInits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{limits: &domain.Limits{MonthlyConversations: 20}})
	var wg sync.WaitGroup
	results := make(chan response, 60)
	for range 60 {
		wg.Go(func() { results <- e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil) })
	}
	wg.Wait()
	close(results)
	ok, refused := 0, 0
	for r := range results {
		switch r.status {
		case 200:
			ok++
		case 429:
			wantError(t, r, 429, "quota")
			refused++
		default:
			t.Fatalf("unexpected %d %s", r.status, r.raw)
		}
	}
	if ok != 20 || refused != 40 {
		t.Fatalf("admitted %d and refused %d, want 20 and 40", ok, refused)
	}
	u := e.api("GET", "/api/v1/usage", nil)
	if u.body["conversations"] != 20.0 || u.body["allowance"] != 20.0 || u.body["blocked"] != true || u.str("reason") != "quota" {
		t.Fatalf("usage = %s", u.raw)
	}
}

func TestSpendCapAndBlockedAccountsKeepChatting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{limits: &domain.Limits{MonthlyConversations: 1, OveragePriceCents: 40, SpendCapCents: 100}})
	first, _ := e.start()
	e.start() // overage 40
	e.start() // overage 80
	r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil)
	wantError(t, r, 429, "spend_cap") // 120 would pass the cap
	// Existing conversations keep working while new ones are refused.
	if r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": first, "text": "hours?"}, nil); r.status != 200 {
		t.Fatalf("chat in an existing conversation of a blocked account: %d %s", r.status, r.raw)
	}
	u := e.api("GET", "/api/v1/usage", nil)
	if u.body["conversations"] != 3.0 || u.body["overage_conversations"] != 2.0 || u.body["overage_cents"] != 80.0 ||
		u.body["spend_cap_cents"] != 100.0 || u.body["blocked"] != true || u.str("reason") != "spend_cap" {
		t.Fatalf("usage = %s", u.raw)
	}
	// Raising the cap unblocks at once.
	if err := e.store.SetLimits(t.Context(), e.account.ID, domain.Limits{MonthlyConversations: 1, OveragePriceCents: 40, SpendCapCents: 200}); err != nil {
		t.Fatal(err)
	}
	if r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil); r.status != 200 {
		t.Fatalf("after raising the cap: %d %s", r.status, r.raw)
	}
}

func TestOverageOffByDefaultGivesQuota(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{limits: &domain.Limits{MonthlyConversations: 1}})
	e.start()
	wantError(t, e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil), 429, "quota")
}
