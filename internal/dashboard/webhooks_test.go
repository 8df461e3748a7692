package dashboard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"parley/internal/audit"
	"parley/internal/outbound"
	"parley/internal/store"
	"parley/internal/webhooks"
)

// flushQueue records the flushes asked for; the test runs them.
type flushQueue struct {
	mu  sync.Mutex
	ids []string
}

func (q *flushQueue) EnqueueWebhook(_ context.Context, id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, id)
	return nil
}

// hookDash is a test dashboard with the webhooks service and the audit
// log, and a real receiver on loopback that answers 503 then 200; the
// guard lets exactly the receiver through, as if it were a public site.
type hookDash struct {
	*testDash
	svc      *webhooks.Service
	queue    *flushQueue
	receiver *httptest.Server
	mu       sync.Mutex
	got      []string // bodies received
	url      string   // the receiver's URL as an owner enters it
}

// noResolver answers no lookup.
type noResolver struct{}

func (noResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("no lookups in this test")
}

func newHookDash(t *testing.T) *hookDash {
	hd := &hookDash{queue: &flushQueue{}}
	statuses := []int{http.StatusServiceUnavailable}
	hd.receiver = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hd.mu.Lock()
		hd.got = append(hd.got, string(b))
		status := http.StatusOK
		if len(statuses) > 0 {
			status, statuses = statuses[0], statuses[1:]
		}
		hd.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(hd.receiver.Close)
	hd.testDash = newTestDash(t, func(mux *http.ServeMux, d *Dashboard) {
		allRoutes(mux, d)
		mux.HandleFunc("GET /audit", d.Owner(d.AuditLog))
		mux.HandleFunc("GET /webhooks", d.Owner(d.WebhooksPage))
		mux.HandleFunc("POST /webhooks", d.Owner(d.CreateWebhook))
		mux.HandleFunc("GET /webhooks/{id}", d.Owner(d.Webhook))
		mux.HandleFunc("POST /webhooks/{id}/test", d.Owner(d.SendTestWebhook))
		mux.HandleFunc("GET /webhooks/{id}/delete", d.Owner(d.DeleteWebhookPage))
		mux.HandleFunc("POST /webhooks/{id}/delete", d.Owner(d.DeleteWebhook))
	})
	// The receiver is named "localhost": the guard's own lookup, when the
	// URL is saved, fails (noResolver), which lets the name through, and
	// the dial resolves it and is let through to exactly the receiver.
	addr := netip.MustParseAddrPort(hd.receiver.Listener.Addr().String())
	hd.url = "http://localhost:" + strconv.Itoa(int(addr.Port())) + "/hook"
	guard := outbound.New(outbound.Options{Resolver: noResolver{}, TestOnlyAllowAddrs: []netip.AddrPort{addr}})
	hd.d.Audit = audit.New(audit.Options{Store: hd.st, Logger: slog.New(slog.DiscardHandler)})
	hd.svc = webhooks.New(webhooks.Options{Store: hd.st, Queue: hd.queue, Guard: guard, Audit: hd.d.Audit, Logger: slog.New(slog.DiscardHandler)})
	hd.d.Webhooks = hd.svc
	return hd
}

// flush runs the flushes queued so far, as the job queue would.
func (hd *hookDash) flush() {
	hd.queue.mu.Lock()
	ids := hd.queue.ids
	hd.queue.ids = nil
	hd.queue.mu.Unlock()
	for _, id := range ids {
		hd.svc.Flush(context.Background(), id) // a *Retry is expected after the 503
	}
}

// actions are the account's webhook.* audit entries, newest first.
func (hd *hookDash) actions() []string {
	hd.t.Helper()
	es, err := hd.st.AuditEntries(context.Background(), hd.owner.AccountID, store.AuditFilter{Limit: 50})
	if err != nil {
		hd.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if !strings.HasPrefix(e.Action, "webhook.") {
			continue
		}
		if e.ActorType != audit.ActorUser || e.ActorID != hd.owner.ID {
			hd.t.Errorf("%s by %s %s, want the owner", e.Action, e.ActorType, e.ActorID)
		}
		out = append(out, e.Action+" "+e.Target)
	}
	return out
}

func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	hd := newHookDash(t)
	b := hd.signedIn(hd.owner)

	p := b.get("/webhooks")
	if p.status != http.StatusOK || !strings.Contains(p.body, `href="/webhooks" aria-current="page"`) || !strings.Contains(p.body, "No endpoints yet.") {
		t.Fatalf("list: %d %s", p.status, p.body)
	}
	for _, ev := range webhooks.EventTypes {
		if !strings.Contains(p.body, `<input type="checkbox" id="ev-`+ev+`" name="events" value="`+ev+`"`) || !strings.Contains(p.body, `<label for="ev-`+ev+`">`) {
			t.Errorf("no labelled checkbox for %s", ev)
		}
	}

	// A loopback address other than the receiver is refused, worded in
	// the page's language, and the form keeps what was typed.
	ro := hd.signedIn(hd.owner)
	ro.post("/language", url.Values{"lang": {"ro"}})
	p = ro.post("/webhooks", url.Values{"url": {"http://127.0.0.1:1/hook"}, "events": {webhooks.MessageCreated}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Acest URL duce la o adresă loopback; Parley nu trimite evenimente acolo.") ||
		!strings.Contains(p.body, `value="http://127.0.0.1:1/hook"`) || !strings.Contains(p.body, `value="message.created" checked`) {
		t.Fatalf("loopback URL: %d %s", p.status, p.body)
	}
	p = b.post("/webhooks", url.Values{"url": {hd.url}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Choose at least one event.") {
		t.Fatalf("no events: %d %s", p.status, p.body)
	}
	p = b.post("/webhooks", url.Values{"url": {"ftp://example.com/x"}, "events": {webhooks.MessageCreated}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "not a public http or https URL") {
		t.Fatalf("ftp URL: %d %s", p.status, p.body)
	}
	if hooks, _ := hd.svc.List(context.Background(), hd.owner.AccountID); len(hooks) != 0 {
		t.Fatalf("refused forms saved %v", hooks)
	}

	// Created: the secret is shown on this response.
	p = b.post("/webhooks", url.Values{"url": {hd.url}, "events": {webhooks.ConversationStarted, webhooks.MessageCreated}})
	hooks, err := hd.svc.List(context.Background(), hd.owner.AccountID)
	if err != nil || len(hooks) != 1 {
		t.Fatalf("after create: %v %v", hooks, err)
	}
	h := hooks[0]
	if p.status != http.StatusCreated || !strings.Contains(p.body, `value="`+h.Secret+`"`) || !strings.Contains(p.body, `href="/webhooks/`+h.ID+`"`) ||
		!strings.Contains(p.body, "<code>conversation.started</code>, <code>message.created</code>") {
		t.Fatalf("create: %d %s", p.status, p.body)
	}
	if strings.Contains(b.get("/webhooks").body, h.Secret) {
		t.Error("the list shows the secret after the creation's response")
	}

	// The endpoint's page: the secret behind the disclosure, no log yet.
	p = b.get("/webhooks/" + h.ID)
	if p.status != http.StatusOK || !strings.Contains(p.body, "<summary>Show secret</summary>") || !strings.Contains(p.body, `value="`+h.Secret+`"`) ||
		!strings.Contains(p.body, "Nothing sent yet.") {
		t.Fatalf("endpoint page: %d %s", p.status, p.body)
	}

	// Test events: the first gets a 503 and waits for its retry, the
	// second is delivered.
	for range 2 {
		p = b.post("/webhooks/"+h.ID+"/test", nil)
		if p.status != http.StatusSeeOther || p.location != "/webhooks/"+h.ID+"?flash=webhooks.testsent" {
			t.Fatalf("send test: %d %s", p.status, p.location)
		}
		hd.flush()
	}
	hd.mu.Lock()
	got := len(hd.got)
	hd.mu.Unlock()
	if got != 1 {
		t.Fatalf("receiver got %d requests, want 1 (the second waits behind the failed first)", got)
	}
	p = b.get(p.location)
	for _, want := range []string{"A test event is queued", "<code>webhook.test</code>", "status-pending", ">Pending<", "<td>503</td>", `<span lang="en">HTTP 503</span>`, "<td>queued</td>"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("delivery log lacks %q", want)
		}
	}
	ds, _ := hd.svc.Deliveries(context.Background(), hd.owner.AccountID, h.ID, 10)
	next, ok := hd.svc.NextAttempt(ds[1])
	if !ok || !strings.Contains(p.body, `<time datetime="`+next.UTC().Format("2006-01-02T15:04:05Z07:00")+`">`) {
		t.Errorf("the failed delivery's next try (%v %v) is not shown", next, ok)
	}

	// Delete: a confirm page first, then gone from the list.
	p = b.get("/webhooks/" + h.ID + "/delete")
	if p.status != http.StatusOK || !strings.Contains(p.body, `action="/webhooks/`+h.ID+`/delete"`) || !strings.Contains(p.body, "Delete the endpoint") {
		t.Fatalf("confirm: %d %s", p.status, p.body)
	}
	p = b.post("/webhooks/"+h.ID+"/delete", nil)
	if p.status != http.StatusSeeOther || p.location != "/webhooks?flash=webhooks.deleted" {
		t.Fatalf("delete: %d %s", p.status, p.location)
	}
	if p = b.get(p.location); !strings.Contains(p.body, "The endpoint is deleted.") || strings.Contains(p.body, hd.url) {
		t.Fatalf("after delete: %s", p.body)
	}
	if p = b.get("/webhooks/" + h.ID); p.status != http.StatusNotFound {
		t.Fatalf("deleted endpoint: %d", p.status)
	}

	// Logged by the service, with the user as the actor.
	target := "webhook:" + h.ID
	want := []string{"webhook.delete " + target, "webhook.test " + target, "webhook.test " + target, "webhook.create " + target}
	if got := hd.actions(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("audit log = %v, want %v", got, want)
	}
}

func TestWebhooksOwnersOnly(t *testing.T) {
	t.Parallel()
	hd := newHookDash(t)
	h, err := hd.svc.Create(context.Background(), hd.owner.AccountID, hd.url, []string{webhooks.MessageCreated})
	if err != nil {
		t.Fatal(err)
	}
	op := hd.signedIn(hd.newUser("op@example.com", "Oleg", hd.owner.AccountID))
	if p := op.get("/inbox"); strings.Contains(p.body, `href="/webhooks"`) {
		t.Error("an operator sees the webhooks link")
	}
	if p := hd.signedIn(hd.owner).get("/inbox"); !strings.Contains(p.body, `href="/webhooks"`) {
		t.Error("the owner sees no webhooks link")
	}
	for _, path := range []string{"/webhooks", "/webhooks/" + h.ID, "/webhooks/" + h.ID + "/delete"} {
		if p := op.get(path); p.status != http.StatusForbidden {
			t.Errorf("operator GET %s: %d", path, p.status)
		}
	}
	for _, path := range []string{"/webhooks", "/webhooks/" + h.ID + "/test", "/webhooks/" + h.ID + "/delete"} {
		if p := op.post(path, url.Values{"url": {hd.url}, "events": {webhooks.MessageCreated}}); p.status != http.StatusForbidden {
			t.Errorf("operator POST %s: %d", path, p.status)
		}
	}

	// Another account's owner: the endpoint does not exist for them.
	other := hd.signedIn(hd.newUser("other@example.com", "Otto", ""))
	for _, path := range []string{"/webhooks/" + h.ID, "/webhooks/" + h.ID + "/delete"} {
		if p := other.get(path); p.status != http.StatusNotFound {
			t.Errorf("other account GET %s: %d", path, p.status)
		}
	}
	for _, path := range []string{"/webhooks/" + h.ID + "/test", "/webhooks/" + h.ID + "/delete"} {
		if p := other.post(path, nil); p.status != http.StatusNotFound {
			t.Errorf("other account POST %s: %d", path, p.status)
		}
	}
	if p := other.get("/webhooks"); strings.Contains(p.body, hd.url) {
		t.Error("another account lists the endpoint")
	}
	if _, err := hd.svc.Get(context.Background(), hd.owner.AccountID, h.ID); err != nil {
		t.Fatalf("the endpoint is gone: %v", err)
	}
	if ds, _ := hd.svc.Deliveries(context.Background(), hd.owner.AccountID, h.ID, 10); len(ds) != 0 {
		t.Fatalf("refused test events queued %d deliveries", len(ds))
	}
}
