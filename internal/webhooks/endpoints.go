package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/secret"
	"parley/internal/store"
)

// An account's endpoints: registered (checked against the outbound guard
// and the event types), listed, deleted, their delivery log, and the test
// event.

// Create registers an endpoint with a fresh secret. The URL must pass the
// outbound guard (a private address is a 400 unless allowed) and every
// event must be one of EventTypes (at least one, no repeats kept).
func (s *Service) Create(ctx context.Context, accountID, rawURL string, events []string) (store.Webhook, error) {
	u := strings.TrimSpace(rawURL)
	if u == "" {
		return store.Webhook{}, invalid(ReasonURLRequired, "", "url is required")
	}
	if len(u) > 2048 {
		return store.Webhook{}, invalid(ReasonURLLong, "", "url is longer than 2048 characters")
	}
	if err := s.o.Guard.CheckURL(ctx, u); err != nil {
		var r *outbound.Refusal
		if errors.As(err, &r) {
			return store.Webhook{}, invalid(ReasonURLRefused, r.Class.Key(), "url: "+err.Error())
		}
		return store.Webhook{}, invalid(ReasonURLInvalid, "", "url: "+err.Error())
	}
	if len(events) == 0 {
		return store.Webhook{}, invalid(ReasonNoEvents, "", "events: name at least one of "+strings.Join(EventTypes, ", "))
	}
	var evs []string
	for _, e := range events {
		if !slices.Contains(EventTypes, e) {
			return store.Webhook{}, invalid(ReasonUnknownEvent, "", fmt.Sprintf("events: unknown event type %q (known: %s)", e, strings.Join(EventTypes, ", ")))
		}
		if !slices.Contains(evs, e) {
			evs = append(evs, e)
		}
	}
	w, err := s.o.Store.CreateWebhook(ctx, store.NewWebhook{AccountID: accountID, URL: u, Events: evs, Secret: secret.ID("whsec_", 24)})
	if err != nil {
		return store.Webhook{}, err
	}
	s.forget(accountID)
	s.o.Audit.Record(ctx, accountID, audit.WebhookCreate, audit.Target("webhook", w.ID))
	return w, nil
}

// Reasons Create refuses an endpoint for (InputError.Reason): the
// dashboard words them in its language, the API answers the English.
const (
	ReasonURLRequired  = "url_required"
	ReasonURLLong      = "url_long"
	ReasonURLRefused   = "url_refused" // the guard refuses the address; Class names its kind
	ReasonURLInvalid   = "url_invalid" // not an http(s) URL, or its host does not resolve
	ReasonNoEvents     = "no_events"
	ReasonUnknownEvent = "unknown_event"
)

// InputError is Create's refusal: a *domain.InvalidError (a 400 with the
// English message for the API) with the reason's code.
type InputError struct {
	Reason string
	Class  string // for ReasonURLRefused: the outbound.Class key ("loopback", "private", ...)
	Err    *domain.InvalidError
}

func (e *InputError) Error() string { return e.Err.Msg }
func (e *InputError) Unwrap() error { return e.Err }

func invalid(reason, class, msg string) error {
	return &InputError{Reason: reason, Class: class, Err: &domain.InvalidError{Msg: msg}}
}

// List is the account's endpoints, oldest first.
func (s *Service) List(ctx context.Context, accountID string) ([]store.Webhook, error) {
	return s.o.Store.Webhooks(ctx, accountID)
}

// Get is one of the account's endpoints.
func (s *Service) Get(ctx context.Context, accountID, id string) (store.Webhook, error) {
	return s.o.Store.Webhook(ctx, accountID, id)
}

// Delete removes an endpoint with its log; its pending deliveries are not
// sent.
func (s *Service) Delete(ctx context.Context, accountID, id string) error {
	if err := s.o.Store.DeleteWebhook(ctx, accountID, id); err != nil {
		return err
	}
	s.forget(accountID)
	s.o.Audit.Record(ctx, accountID, audit.WebhookDelete, audit.Target("webhook", id))
	return nil
}

// Deliveries is an endpoint's log, newest first.
func (s *Service) Deliveries(ctx context.Context, accountID, id string, limit int) ([]store.Delivery, error) {
	return s.o.Store.Deliveries(ctx, accountID, id, limit)
}

// SendTest queues a webhook.test event to the one endpoint, behind any
// deliveries already pending for it.
func (s *Service) SendTest(ctx context.Context, accountID, id string) (store.Delivery, error) {
	w, err := s.o.Store.Webhook(ctx, accountID, id)
	if err != nil {
		return store.Delivery{}, err
	}
	ev := s.event(Test, map[string]any{"webhook_id": w.ID, "message": "This is a test event from Parley."})
	d, err := s.queue(ctx, w, ev)
	if err != nil {
		return store.Delivery{}, err
	}
	s.o.Audit.Record(ctx, accountID, audit.WebhookTest, audit.Target("webhook", w.ID))
	return d, nil
}
