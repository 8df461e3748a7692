package webhooks_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/outbound"
	"parley/internal/secret"
	"parley/internal/store/sqlite/sqlitetest"
	"parley/internal/webhooks"
)

// TestUsageThresholdEvents: widget inits that take the account across
// 80 % and 100 % of its allowance and to its spend cap reach a real
// loopback receiver as usage.threshold, signed, each once, with the
// usage and limits; the next month tells them again.
func TestUsageThresholdEvents(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	ctx := t.Context()
	l := domain.Limits{MonthlyConversations: 5, OveragePriceCents: 10, SpendCapCents: 20}
	if err := st.SetLimits(ctx, ag.AccountID, l); err != nil {
		t.Fatal(err)
	}
	key := secret.WidgetKey()
	if _, err := st.CreateKey(ctx, ag.AccountID, ag.ID, key); err != nil {
		t.Fatal(err)
	}
	c, q := newClock(), &queue{}
	hooks := webhooks.New(webhooks.Options{Store: st, Queue: q, Guard: outbound.New(outbound.Options{AllowPrivate: true}), Now: c.Now,
		Logger: slog.New(slog.DiscardHandler)})
	svc := chat.New(chat.Options{Store: st, Responder: replier{}, Notifier: notify.NewHub(), Emitter: hooks, Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	rcv := newReceiver(t)
	w, err := hooks.Create(ctx, ag.AccountID, rcv.srv.URL, []string{webhooks.UsageThreshold})
	if err != nil {
		t.Fatal(err)
	}
	inits := func(n int) {
		for range n {
			if _, err := svc.Init(ctx, chat.InitInput{Key: key}); err != nil {
				t.Fatal(err)
			}
		}
	}
	inits(7) // the 8th would be refused: spend cap
	if _, err := svc.Init(ctx, chat.InitInput{Key: key}); err == nil {
		t.Fatal("an init past the spend cap was admitted")
	}
	c.Add(31 * 24 * time.Hour) // June
	inits(5)
	flushAll(t, fixture{svc: hooks, clock: c}, w.ID)

	var got []string
	for _, g := range rcv.all() {
		verify(t, w.Secret, g)
		if g.ev.Type != webhooks.UsageThreshold {
			t.Fatalf("event %s, subscribed only to usage.threshold", g.ev.Type)
		}
		d := g.ev.Data.(map[string]any)
		if d["account_id"] != ag.AccountID || d["allowance"] != float64(5) || d["spend_cap_cents"] != float64(20) || d["overage_price_cents"] != float64(10) {
			t.Fatalf("data %s", g.body)
		}
		got = append(got, fmt.Sprintf("%s %s %v %v", d["period"], d["threshold"], d["conversations"], d["overage_cents"]))
	}
	want := []string{"2026-05 allowance_80 4 0", "2026-05 allowance_100 5 0", "2026-05 spend_cap 7 20",
		"2026-06 allowance_80 4 0", "2026-06 allowance_100 5 0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
}

// TestEmitWithoutEndpointsIsFree: an account without endpoints (the chat
// path's common case) costs Emit no allocation once its endpoints are
// cached: no event is built, no JSON marshalled, nothing stored
// (docs/benchmarks.md, "Webhooks on the chat path").
func TestEmitWithoutEndpointsIsFree(t *testing.T) {
	st, _ := sqlitetest.Agent(t)
	f := newFixture(t, st)
	ctx := t.Context()
	var data any = chat.MessageEvent{Role: "visitor", Text: "hi"}
	f.svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, data) // fills the cache
	if n := testing.AllocsPerRun(100, func() { f.svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, data) }); n != 0 {
		t.Fatalf("Emit without endpoints: %v allocations, want 0", n)
	}
	if len(f.queue.ids) != 0 {
		t.Fatalf("flushes queued without endpoints: %v", f.queue.ids)
	}
}
