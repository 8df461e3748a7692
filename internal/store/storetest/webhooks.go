package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

func newWebhook(t *testing.T, s store.Store, accountID string, events ...string) store.Webhook {
	t.Helper()
	w, err := s.CreateWebhook(t.Context(), store.NewWebhook{AccountID: accountID, URL: "https://hooks.example/in",
		Events: events, Secret: "whsec_test"})
	noErr(t, "CreateWebhook", err)
	return w
}

// testWebhooks: endpoints are the account's, listed oldest first, read back
// as created; another account's is not found, for reading, listing and
// deleting; at most MaxWebhooksPerAccount per account.
func testWebhooks(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, many)
	b := newAccount(t, s, many)
	first := newWebhook(t, s, a.ID, "message.created", "conversation.started")
	second := newWebhook(t, s, a.ID, "usage.threshold")
	if !first.Wants("message.created") || first.Wants("usage.threshold") {
		t.Fatalf("Wants: %v", first.Events)
	}
	got, err := s.Webhook(ctx, a.ID, first.ID)
	noErr(t, "Webhook", err)
	if got.URL != first.URL || got.Secret != "whsec_test" || fmt.Sprint(got.Events) != "[message.created conversation.started]" {
		t.Fatalf("Webhook = %+v, want %+v", got, first)
	}
	sameTime(t, "CreatedAt", got.CreatedAt, first.CreatedAt)
	_, err = s.Webhook(ctx, b.ID, first.ID)
	wantErr(t, "another account's Webhook", err, domain.ErrNotFound)
	byID, err := s.WebhookByID(ctx, second.ID)
	noErr(t, "WebhookByID", err)
	if byID.AccountID != a.ID {
		t.Fatalf("WebhookByID account = %s", byID.AccountID)
	}
	list, err := s.Webhooks(ctx, a.ID)
	noErr(t, "Webhooks", err)
	if len(list) != 2 || list[0].ID != first.ID || list[1].ID != second.ID {
		t.Fatalf("Webhooks = %+v", list)
	}
	none, err := s.Webhooks(ctx, b.ID)
	noErr(t, "Webhooks of b", err)
	if none == nil || len(none) != 0 {
		t.Fatalf("Webhooks of b = %#v, want empty", none)
	}
	wantErr(t, "another account's DeleteWebhook", s.DeleteWebhook(ctx, b.ID, first.ID), domain.ErrNotFound)
	noErr(t, "DeleteWebhook", s.DeleteWebhook(ctx, a.ID, first.ID))
	wantErr(t, "DeleteWebhook again", s.DeleteWebhook(ctx, a.ID, first.ID), domain.ErrNotFound)
	_, err = s.Webhook(ctx, a.ID, first.ID)
	wantErr(t, "deleted Webhook", err, domain.ErrNotFound)

	for i := 1; i < store.MaxWebhooksPerAccount; i++ {
		newWebhook(t, s, b.ID, "message.created")
	}
	newWebhook(t, s, b.ID, "message.created")
	_, err = s.CreateWebhook(ctx, store.NewWebhook{AccountID: b.ID, URL: "https://x.example", Events: []string{"message.created"}, Secret: "s"})
	wantErr(t, "CreateWebhook past the bound", err, store.ErrWebhookLimit)
}

// testWebhookLimitConcurrent: creations racing at the bound leave exactly
// MaxWebhooksPerAccount endpoints.
func testWebhookLimitConcurrent(t *testing.T, s store.Store) {
	a := newAccount(t, s, many)
	for i := 0; i < store.MaxWebhooksPerAccount-3; i++ {
		newWebhook(t, s, a.ID, "message.created")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreateWebhook(t.Context(), store.NewWebhook{AccountID: a.ID, URL: "https://x.example", Events: []string{"message.created"}, Secret: "s"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, store.ErrWebhookLimit):
			t.Fatalf("CreateWebhook: %v", err)
		}
	}
	list, err := s.Webhooks(t.Context(), a.ID)
	noErr(t, "Webhooks", err)
	if ok != 3 || len(list) != store.MaxWebhooksPerAccount {
		t.Fatalf("%d creations succeeded, %d endpoints; want 3 and %d", ok, len(list), store.MaxWebhooksPerAccount)
	}
}

// testWebhookDeliveries: pending deliveries come out oldest first; an
// attempt is recorded; finished deliveries are trimmed to DeliveryLogSize
// per endpoint, pending ones never; deleting the endpoint deletes its log.
func testWebhookDeliveries(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, many)
	b := newAccount(t, s, many)
	w := newWebhook(t, s, a.ID, "message.created")
	other := newWebhook(t, s, a.ID, "message.created")

	_, err := s.NextDelivery(ctx, w.ID)
	wantErr(t, "NextDelivery of none", err, domain.ErrNotFound)
	_, err = s.AddDelivery(ctx, store.NewDelivery{WebhookID: "wh_nonesuch", EventID: "evt_x", Type: "message.created", Body: []byte(`{}`), At: base})
	wantErr(t, "AddDelivery to no endpoint", err, domain.ErrNotFound)

	add := func(wh string, i int) store.Delivery {
		t.Helper()
		d, err := s.AddDelivery(ctx, store.NewDelivery{WebhookID: wh, EventID: fmt.Sprintf("evt_%d", i), Type: "message.created",
			Body: []byte(fmt.Sprintf(`{"n":%d}`, i)), At: base.Add(time.Duration(i) * time.Second)})
		noErr(t, "AddDelivery", err)
		return d
	}
	d1 := add(w.ID, 1)
	add(w.ID, 2)
	add(other.ID, 99)
	next, err := s.NextDelivery(ctx, w.ID)
	noErr(t, "NextDelivery", err)
	if next.ID != d1.ID || string(next.Body) != `{"n":1}` || next.Status != store.DeliveryPending || next.Attempt != 0 {
		t.Fatalf("NextDelivery = %+v, want the first", next)
	}
	sameTime(t, "CreatedAt", next.CreatedAt, base.Add(time.Second))

	r, err := s.RecordAttempt(ctx, d1.ID, store.DeliveryAttempt{Status: store.DeliveryPending, ResponseCode: 500, Error: "HTTP 500", At: base.Add(time.Minute)})
	noErr(t, "RecordAttempt", err)
	if r.Attempt != 1 || r.ResponseCode != 500 || r.Status != store.DeliveryPending {
		t.Fatalf("after a failed attempt: %+v", r)
	}
	r, err = s.RecordAttempt(ctx, d1.ID, store.DeliveryAttempt{Status: store.DeliveryDelivered, ResponseCode: 204, At: base.Add(2 * time.Minute)})
	noErr(t, "RecordAttempt", err)
	if r.Attempt != 2 || r.ResponseCode != 204 || r.Status != store.DeliveryDelivered || r.Error != "" {
		t.Fatalf("after a delivered attempt: %+v", r)
	}
	sameTime(t, "UpdatedAt", r.UpdatedAt, base.Add(2*time.Minute))
	next, err = s.NextDelivery(ctx, w.ID)
	noErr(t, "NextDelivery", err)
	if string(next.Body) != `{"n":2}` {
		t.Fatalf("NextDelivery after the first = %s", next.Body)
	}
	_, err = s.RecordAttempt(ctx, "dlv_nonesuch", store.DeliveryAttempt{Status: store.DeliveryFailed, At: base})
	wantErr(t, "RecordAttempt of none", err, domain.ErrNotFound)

	_, err = s.Deliveries(ctx, b.ID, w.ID, 10)
	wantErr(t, "another account's Deliveries", err, domain.ErrNotFound)

	// Fill past the log's size: the oldest finished ones go; pending stay.
	for i := 3; i < store.DeliveryLogSize+10; i++ {
		d := add(w.ID, i)
		_, err := s.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Status: store.DeliveryFailed, Error: "gave up", At: base.Add(time.Hour)})
		noErr(t, "RecordAttempt", err)
	}
	log, err := s.Deliveries(ctx, a.ID, w.ID, 0)
	noErr(t, "Deliveries", err)
	if len(log) != store.DeliveryLogSize {
		t.Fatalf("Deliveries = %d, want %d", len(log), store.DeliveryLogSize)
	}
	if log[0].EventID != fmt.Sprintf("evt_%d", store.DeliveryLogSize+9) {
		t.Fatalf("Deliveries[0] = %s, want the newest", log[0].EventID)
	}
	next, err = s.NextDelivery(ctx, w.ID)
	noErr(t, "NextDelivery after trimming", err)
	if next.EventID != "evt_2" {
		t.Fatalf("the pending delivery was trimmed: next = %s", next.EventID)
	}
	three, err := s.Deliveries(ctx, a.ID, w.ID, 3)
	noErr(t, "Deliveries", err)
	if len(three) != 3 || three[0].EventID != log[0].EventID {
		t.Fatalf("Deliveries(3) = %d", len(three))
	}

	pending, err := s.PendingWebhooks(ctx, base.Add(time.Hour*24), 10)
	noErr(t, "PendingWebhooks", err)
	if fmt.Sprint(sorted(pending)) != fmt.Sprint(sorted([]string{w.ID, other.ID})) {
		t.Fatalf("PendingWebhooks = %v", pending)
	}
	pending, err = s.PendingWebhooks(ctx, base, 10)
	noErr(t, "PendingWebhooks", err)
	if len(pending) != 0 {
		t.Fatalf("PendingWebhooks before any = %v", pending)
	}

	noErr(t, "DeleteWebhook", s.DeleteWebhook(ctx, a.ID, w.ID))
	_, err = s.NextDelivery(ctx, w.ID)
	wantErr(t, "NextDelivery of a deleted endpoint", err, domain.ErrNotFound)
	_, err = s.RecordAttempt(ctx, next.ID, store.DeliveryAttempt{Status: store.DeliveryDelivered, At: base})
	wantErr(t, "RecordAttempt of a deleted endpoint's delivery", err, domain.ErrNotFound)
}

func sorted(ids []string) []string {
	out := append([]string{}, ids...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
