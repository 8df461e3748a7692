package webhooks_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/jobs"
	"parley/internal/notify"
	"parley/internal/outbound"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
	"parley/internal/webhooks"
)

// waitFor polls cond until it holds or 20 s pass: the queue runs jobs on
// its own goroutines, and its poll interval is 50 ms here.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// instance is one Parley instance's queue and webhooks service on the
// database at path.
func instance(t *testing.T, st store.Store, path string, start bool) (*jobs.Queue, *webhooks.Service) {
	t.Helper()
	var svc *webhooks.Service
	q, err := jobs.Open(context.Background(), jobs.Options{DB: path, Logger: slog.New(slog.DiscardHandler), PollInterval: 50 * time.Millisecond,
		FlushWebhook: func(ctx context.Context, id string) error { return svc.FlushJob(jobs.Snooze)(ctx, id) }})
	if err != nil {
		t.Fatal(err)
	}
	svc = webhooks.New(webhooks.Options{Store: st, Queue: q, Guard: outbound.New(outbound.Options{AllowPrivate: true}),
		Backoff: []time.Duration{300 * time.Millisecond}, Logger: slog.New(slog.DiscardHandler)})
	if start {
		if err := q.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	return q, svc
}

// TestNothingLostAcrossARestart: events queued by an instance that stops
// before sending them are sent, in order, by the next instance on the
// same database; a 500 there is retried through the queue's snooze.
func TestNothingLostAcrossARestart(t *testing.T) {
	t.Parallel()
	path := sqlitetest.Path(t)
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := t.Context()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: "o@example.test", Name: "O", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	rcv := newReceiver(t, http.StatusInternalServerError)

	q1, svc1 := instance(t, st, path, false) // never started: it dies with work queued
	w, err := svc1.Create(ctx, acc.ID, rcv.srv.URL, []string{webhooks.MessageCreated})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		svc1.Emit(ctx, acc.ID, webhooks.MessageCreated, map[string]int{"n": i})
	}
	if err := q1.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rcv.all()); n != 0 {
		t.Fatalf("sent before the restart: %d", n)
	}

	instance(t, st, path, true)
	waitFor(t, "the three events", func() bool { return len(rcv.all()) == 4 })
	var ns []int
	for _, g := range rcv.all() {
		verify(t, w.Secret, g)
		ns = append(ns, int(g.ev.Data.(map[string]any)["n"].(float64)))
	}
	if want := []int{0, 0, 1, 2}; !equalInts(ns, want) {
		t.Fatalf("arrived as %v, want %v (the first after its 500, then in order)", ns, want)
	}
	waitFor(t, "the log to show all delivered", func() bool {
		log, _ := st.Deliveries(ctx, acc.ID, w.ID, 0)
		for _, d := range log {
			if d.Status != store.DeliveryDelivered {
				return false
			}
		}
		return len(log) == 3
	})
}

// replier answers every visitor with the same text, or hands over when
// they ask for a human (the service's own handoff detection).
type replier struct{}

func (replier) Respond(context.Context, agent.Request) (agent.Reply, error) {
	return agent.Reply{Text: "Hello from the AI"}, nil
}

// TestChatEvents: real chat actions (a visitor starts a conversation and
// writes, the AI answers, an operator takes over, replies and releases)
// reach the receiver as events, in order, with the message roles.
func TestChatEvents(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	ctx := t.Context()
	if err := st.SetLimits(ctx, ag.AccountID, domain.Limits{MonthlyConversations: 100}); err != nil {
		t.Fatal(err)
	}
	key := secret.WidgetKey()
	if _, err := st.CreateKey(ctx, ag.AccountID, ag.ID, key); err != nil {
		t.Fatal(err)
	}
	c, q := newClock(), &queue{}
	hooks := webhooks.New(webhooks.Options{Store: st, Queue: q, Guard: outbound.New(outbound.Options{AllowPrivate: true}), Now: c.Now,
		Logger: slog.New(slog.DiscardHandler)})
	svc := chat.New(chat.Options{Store: st, Responder: replier{}, Notifier: notify.NewHub(), Emitter: hooks, Logger: slog.New(slog.DiscardHandler)})
	rcv := newReceiver(t)
	w, err := hooks.Create(ctx, ag.AccountID, rcv.srv.URL, webhooks.EventTypes)
	if err != nil {
		t.Fatal(err)
	}

	in, err := svc.Init(ctx, chat.InitInput{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Chat(ctx, chat.ChatInput{Key: key, ConversationID: in.ConversationID, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.OperatorReply(ctx, ag.AccountID, in.ConversationID, chat.Operator{Name: "Ion"}, "I'm here"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Release(ctx, ag.AccountID, in.ConversationID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.TakeOver(ctx, ag.AccountID, in.ConversationID); err != nil {
		t.Fatal(err)
	}
	flushAll(t, fixture{svc: hooks, clock: c}, w.ID)
	var got []string
	for _, g := range rcv.all() {
		verify(t, w.Secret, g)
		d := g.ev.Data.(map[string]any)
		if d["conversation_id"] != in.ConversationID {
			t.Fatalf("event %s of another conversation: %s", g.ev.Type, g.body)
		}
		e := g.ev.Type
		if role, ok := d["role"]; ok {
			e += ":" + role.(string)
		}
		got = append(got, e)
	}
	want := []string{"conversation.started", "message.created:visitor", "message.created:ai",
		"conversation.taken_over", "message.created:operator", "conversation.released", "conversation.taken_over"}
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}
