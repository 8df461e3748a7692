package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/store"
	"parley/internal/store/teststores"
	"parley/internal/webhooks"
)

var stores = teststores.New("webhooks")

func TestMain(m *testing.M) {
	code := m.Run()
	stores.Close()
	os.Exit(code)
}

// clock is the time the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }
func newClock() *clock               { return &clock{now: time.Date(2026, 5, 15, 12, 0, 0, 0, time.UTC)} }

// queue records the flushes asked for; the test runs them (Flush).
type queue struct {
	mu  sync.Mutex
	ids []string
}

func (q *queue) EnqueueWebhook(_ context.Context, id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, id)
	return nil
}

// received is one request the receiver got.
type received struct {
	sig  string
	body []byte
	ev   webhooks.Event
}

// receiver is a real HTTP server on loopback that answers with the
// statuses it is given in turn (then 200) and keeps what it got.
type receiver struct {
	mu       sync.Mutex
	statuses []int
	got      []received
	srv      *httptest.Server
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ev webhooks.Event
		json.Unmarshal(body, &ev)
		r.mu.Lock()
		r.got = append(r.got, received{sig: req.Header.Get("Parley-Signature"), body: body, ev: ev})
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) all() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received{}, r.got...)
}

func (r *receiver) types() []string {
	var out []string
	for _, g := range r.all() {
		out = append(out, g.ev.Type)
	}
	return out
}

type fixture struct {
	st    store.Store
	svc   *webhooks.Service
	clock *clock
	queue *queue
	acc   domain.Account
}

// newFixture: the service on st with a guard that lets loopback through
// (the receiver stands for a public site), a queue the test runs and its
// own clock.
func newFixture(t *testing.T, st store.Store) fixture {
	acc, err := st.CreateAccount(t.Context(), store.NewAccount{Email: strings.ToLower(t.Name()[len(t.Name())-8:]) + strconv.FormatInt(time.Now().UnixNano(), 36) + "@example.test",
		Name: "Owner", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	c, q := newClock(), &queue{}
	svc := webhooks.New(webhooks.Options{Store: st, Queue: q, Guard: outbound.New(outbound.Options{AllowPrivate: true}),
		Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	return fixture{st: st, svc: svc, clock: c, queue: q, acc: acc}
}

// verify checks a delivery's signature the way docs/api.md tells
// receivers to, written here apart from the package's Sign.
func verify(t *testing.T, secret string, r received) {
	t.Helper()
	var ts, v1 string
	for _, part := range strings.Split(r.sig, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(r.body)))
	want := hex.EncodeToString(m.Sum(nil))
	if ts == "" || !hmac.Equal([]byte(v1), []byte(want)) {
		t.Fatalf("signature %q does not verify (want v1=%s)", r.sig, want)
	}
}

func TestCreateRules(t *testing.T) {
	stores.Each(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		strict := webhooks.New(webhooks.Options{Store: st, Queue: f.queue, Guard: outbound.New(outbound.Options{})})
		ctx := t.Context()
		var inv *domain.InvalidError
		for _, c := range []struct {
			url           string
			events        []string
			reason, class string // the InputError the dashboard words
		}{
			{"http://127.0.0.1:9/hook", []string{webhooks.MessageCreated}, webhooks.ReasonURLRefused, "loopback"},
			{"http://10.1.2.3/hook", []string{webhooks.MessageCreated}, webhooks.ReasonURLRefused, "private"},
			{"ftp://hooks.example/x", []string{webhooks.MessageCreated}, webhooks.ReasonURLInvalid, ""},
			{"", []string{webhooks.MessageCreated}, webhooks.ReasonURLRequired, ""},
			{"https://93.184.215.14/" + strings.Repeat("x", 2048), []string{webhooks.MessageCreated}, webhooks.ReasonURLLong, ""},
			{"https://93.184.215.14/hook", []string{"message.deleted"}, webhooks.ReasonUnknownEvent, ""},
			{"https://93.184.215.14/hook", nil, webhooks.ReasonNoEvents, ""},
			{"https://93.184.215.14/hook", []string{webhooks.Test}, webhooks.ReasonUnknownEvent, ""},
		} {
			_, err := strict.Create(ctx, f.acc.ID, c.url, c.events)
			if !errors.As(err, &inv) {
				t.Errorf("Create(%q, %v) = %v, want an InvalidError (400)", c.url, c.events, err)
			}
			var in *webhooks.InputError
			if !errors.As(err, &in) || in.Reason != c.reason || in.Class != c.class || err.Error() != inv.Msg {
				t.Errorf("Create(%.40q, %v) = %#v, want reason %s class %q with the API's message", c.url, c.events, in, c.reason, c.class)
			}
		}
		w, err := strict.Create(ctx, f.acc.ID, "https://93.184.215.14/hook", []string{webhooks.MessageCreated, webhooks.MessageCreated, webhooks.UsageThreshold})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(w.Secret, "whsec_") || len(w.Events) != 2 {
			t.Fatalf("created %+v", w)
		}
	})
}

// TestSignedRetryAndOrder: events go out signed, in the order they
// happened; a 500 holds the endpoint's queue until the failed event's
// retry, after its backoff, succeeds; then the rest follow in order.
func TestSignedRetryAndOrder(t *testing.T) {
	stores.Each(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		ctx := t.Context()
		rcv := newReceiver(t, http.StatusInternalServerError)
		w, err := f.svc.Create(ctx, f.acc.ID, rcv.srv.URL+"/hook", []string{webhooks.ConversationStarted, webhooks.MessageCreated})
		if err != nil {
			t.Fatal(err)
		}
		for i, typ := range []string{webhooks.ConversationStarted, webhooks.MessageCreated, webhooks.ConversationReleased, webhooks.MessageCreated} {
			f.svc.Emit(ctx, f.acc.ID, typ, map[string]int{"n": i})
		}
		if len(f.queue.ids) != 3 || f.queue.ids[0] != w.ID {
			t.Fatalf("flushes queued: %v, want 3 of %s (released is not subscribed)", f.queue.ids, w.ID)
		}

		var retry *webhooks.Retry
		if err := f.svc.Flush(ctx, w.ID); !errors.As(err, &retry) || retry.After != webhooks.DefaultBackoff[0] {
			t.Fatalf("Flush after a 500 = %v, want a retry in %s", err, webhooks.DefaultBackoff[0])
		}
		f.clock.Add(10 * time.Second)
		if err := f.svc.Flush(ctx, w.ID); !errors.As(err, &retry) || retry.After != 20*time.Second {
			t.Fatalf("an early Flush = %v, want a retry in the 20 s left", err)
		}
		if n := len(rcv.all()); n != 1 {
			t.Fatalf("an early flush sent again: %d requests", n)
		}
		f.clock.Add(20 * time.Second)
		if waits := flushAll(t, f, w.ID); len(waits) != 1 || waits[0] != webhooks.Recheck {
			t.Fatalf("the flush after the backoff waited %v, want one recheck", waits)
		}
		got := rcv.all()
		if len(got) != 4 {
			t.Fatalf("receiver got %d requests, want 4 (one 500, then three)", len(got))
		}
		var ns []int
		for _, g := range got {
			verify(t, w.Secret, g)
			ns = append(ns, int(g.ev.Data.(map[string]any)["n"].(float64)))
		}
		if got[0].ev.ID != got[1].ev.ID {
			t.Fatalf("the retry is another event: %s then %s", got[0].ev.ID, got[1].ev.ID)
		}
		if want := []int{0, 0, 1, 3}; !equalInts(ns, want) {
			t.Fatalf("events arrived as %v, want %v", ns, want)
		}
		if got[0].ev.Type != webhooks.ConversationStarted || got[0].ev.CreatedAt.IsZero() {
			t.Fatalf("body: %s", got[0].body)
		}

		log, err := f.svc.Deliveries(ctx, f.acc.ID, w.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != 3 {
			t.Fatalf("log has %d deliveries", len(log))
		}
		first := log[2]
		if first.Status != store.DeliveryDelivered || first.Attempt != 2 || first.ResponseCode != 200 {
			t.Fatalf("first delivery in the log: %+v", first)
		}
	})
}

// TestGiveUp: a delivery failing for a day is marked failed and the next
// one goes.
func TestGiveUp(t *testing.T) {
	stores.Each(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		ctx := t.Context()
		rcv := newReceiver(t)
		var mu sync.Mutex
		down := true
		rcv.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var ev webhooks.Event
			json.Unmarshal(body, &ev)
			rcv.mu.Lock()
			rcv.got = append(rcv.got, received{body: body, ev: ev})
			rcv.mu.Unlock()
			mu.Lock()
			defer mu.Unlock()
			if down && ev.Data.(map[string]any)["n"].(float64) == 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		})
		w, err := f.svc.Create(ctx, f.acc.ID, rcv.srv.URL, []string{webhooks.MessageCreated})
		if err != nil {
			t.Fatal(err)
		}
		f.svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, map[string]int{"n": 0})
		f.svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, map[string]int{"n": 1})
		attempts := len(flushAll(t, f, w.ID))
		log, _ := f.svc.Deliveries(ctx, f.acc.ID, w.ID, 0)
		if len(log) != 2 || log[1].Status != store.DeliveryFailed || log[0].Status != store.DeliveryDelivered || log[1].ResponseCode != 503 {
			t.Fatalf("log: %+v", log)
		}
		if log[1].UpdatedAt.Sub(log[1].CreatedAt) < webhooks.DefaultGiveUpAfter || attempts < 8 {
			t.Fatalf("gave up after %s and %d retries", log[1].UpdatedAt.Sub(log[1].CreatedAt), attempts)
		}
	})
}

// TestSendTestAndIsolation: the test event goes to the one endpoint;
// another account's endpoint is not found for any action.
func TestSendTestAndIsolation(t *testing.T) {
	stores.Each(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		other := newFixture(t, st)
		ctx := t.Context()
		rcv := newReceiver(t)
		w, err := f.svc.Create(ctx, f.acc.ID, rcv.srv.URL, []string{webhooks.UsageThreshold})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.SendTest(ctx, other.acc.ID, w.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another account's SendTest = %v", err)
		}
		if err := f.svc.Delete(ctx, other.acc.ID, w.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another account's Delete = %v", err)
		}
		if _, err := f.svc.SendTest(ctx, f.acc.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		flushAll(t, f, w.ID)
		if got := rcv.types(); len(got) != 1 || got[0] != webhooks.Test {
			t.Fatalf("receiver got %v", got)
		}
		verify(t, w.Secret, rcv.all()[0])
		if err := f.svc.Delete(ctx, f.acc.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		f.svc.Emit(ctx, f.acc.ID, webhooks.UsageThreshold, nil)
		if err := f.svc.Flush(ctx, w.ID); err != nil {
			t.Fatalf("Flush of a deleted endpoint = %v", err)
		}
		if n := len(rcv.all()); n != 1 {
			t.Fatalf("a deleted endpoint got %d requests", n)
		}
	})
}

// TestEmitCache: with no endpoint, Emit reads the store once per
// CacheTTL; an endpoint created on this instance is seen at once.
func TestEmitCache(t *testing.T) {
	stores.Each(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		counting := &countingStore{Store: st}
		svc := webhooks.New(webhooks.Options{Store: counting, Queue: f.queue, Guard: outbound.New(outbound.Options{AllowPrivate: true}), Now: f.clock.Now})
		ctx := t.Context()
		for range 100 {
			svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, nil)
		}
		if n := counting.reads(); n != 1 {
			t.Fatalf("100 events without endpoints read the endpoints %d times, want 1", n)
		}
		f.clock.Add(webhooks.DefaultCacheTTL)
		svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, nil)
		if n := counting.reads(); n != 2 {
			t.Fatalf("after the TTL: %d reads, want 2", n)
		}
		if _, err := svc.Create(ctx, f.acc.ID, "http://127.0.0.1:9/x", []string{webhooks.MessageCreated}); err != nil {
			t.Fatal(err)
		}
		svc.Emit(ctx, f.acc.ID, webhooks.MessageCreated, nil)
		if len(f.queue.ids) != 1 {
			t.Fatalf("an endpoint just created got %d flushes", len(f.queue.ids))
		}
	})
}

type countingStore struct {
	store.Store
	mu sync.Mutex
	n  int
}

func (c *countingStore) Webhooks(ctx context.Context, accountID string) ([]store.Webhook, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Store.Webhooks(ctx, accountID)
}

func (c *countingStore) reads() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

// flushAll runs the endpoint's flush until it ends (nil), moving the
// clock by every wait it asks for, at most 50 times; it returns the
// waits.
func flushAll(t *testing.T, f fixture, id string) []time.Duration {
	t.Helper()
	var waits []time.Duration
	for range 50 {
		err := f.svc.Flush(t.Context(), id)
		if err == nil {
			return waits
		}
		var retry *webhooks.Retry
		if !errors.As(err, &retry) {
			t.Fatalf("Flush: %v", err)
		}
		waits = append(waits, retry.After)
		f.clock.Add(retry.After)
	}
	t.Fatal("the flush does not end")
	return nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAudit: creating, testing and deleting an endpoint are logged by the
// service with the request's actor, so the API's calls are logged as the
// dashboard's are.
func TestAudit(t *testing.T) {
	stores.Each(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		log := audit.New(audit.Options{Store: st, Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler)})
		svc := webhooks.New(webhooks.Options{Store: st, Queue: f.queue, Guard: outbound.New(outbound.Options{AllowPrivate: true}),
			Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler), Audit: log})
		ctx := audit.WithActor(t.Context(), audit.Actor{Type: audit.ActorAPIToken, ID: "tok_1", Name: "ci"})
		if _, err := svc.Create(ctx, f.acc.ID, "", []string{webhooks.MessageCreated}); err == nil {
			t.Fatal("an empty URL was accepted")
		}
		w, err := svc.Create(ctx, f.acc.ID, "http://127.0.0.1:9/hook", []string{webhooks.MessageCreated})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SendTest(ctx, f.acc.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, f.acc.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, f.acc.ID, w.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		page, err := log.List(t.Context(), f.acc.ID, audit.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range page.Entries {
			if e.ActorType != audit.ActorAPIToken || e.ActorID != "tok_1" || e.Target != "webhook:"+w.ID {
				t.Errorf("entry %+v", e)
			}
			got = append(got, e.Action)
		}
		if want := []string{audit.WebhookDelete, audit.WebhookTest, audit.WebhookCreate}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("logged %v, want %v (refusals and failed deletes are not logged)", got, want)
		}
	})
}
