// Package webhooks sends signed events to the endpoints an account
// registers (issue 18): conversation.started, message.created,
// conversation.waiting, conversation.taken_over, conversation.released
// and usage.threshold.
//
// An event is written, one pending delivery per endpoint that wants it,
// in the store, and a flush of each such endpoint is queued on the job
// queue (package jobs). The flush sends the endpoint's pending deliveries
// one at a time, oldest first: only one flush of an endpoint is queued or
// running at a time, so while the receiver answers 2xx it gets the events
// in the order they happened. A delivery that fails (no answer within
// Timeout, or a status other than 2xx) is tried again after a backoff
// (Backoff: about 24 hours in all) and holds the deliveries after it
// back meanwhile; once it has failed for good (GiveUpAfter) the next one
// goes. Deliveries and their order survive restarts: they are rows, and
// the flush is a job.
//
// Each request carries Parley-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>" under the endpoint's secret> (Sign).
package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/secret"
	"parley/internal/store"
)

// Event types.
const (
	ConversationStarted   = "conversation.started"
	MessageCreated        = "message.created"
	ConversationWaiting   = "conversation.waiting"
	ConversationTakenOver = "conversation.taken_over"
	ConversationReleased  = "conversation.released"
	UsageThreshold        = "usage.threshold"
	// Test is what "send test event" sends, to one endpoint, whatever it
	// subscribed to; it cannot be subscribed to.
	Test = "webhook.test"
)

// EventTypes are the types an endpoint may subscribe to.
var EventTypes = []string{ConversationStarted, MessageCreated, ConversationWaiting, ConversationTakenOver, ConversationReleased, UsageThreshold}

// Defaults for Options' zero values.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultGiveUpAfter = 24 * time.Hour
	DefaultCacheTTL    = 10 * time.Second
	// batch is how many deliveries one flush job sends before it queues
	// itself again, so a long queue does not hold a worker past its
	// timeout.
	batch = 50
	// Recheck is how soon a flush that sent something looks again for
	// events that came while it ran (Flush).
	Recheck = time.Second
)

// DefaultBackoff are the waits after the 1st, 2nd, ... failed attempt of a
// delivery; the last repeats. Together about 24 hours.
var DefaultBackoff = []time.Duration{
	30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 8 * time.Hour,
}

// Store is what the service needs of the store.
type Store interface {
	store.Webhooks
}

// Queue queues a flush of an endpoint (jobs.Queue.EnqueueWebhook).
type Queue interface {
	EnqueueWebhook(ctx context.Context, webhookID string) error
}

// Options configure a Service.
type Options struct {
	Store Store
	Queue Queue
	// Guard checks endpoint URLs when they are saved and every dial when
	// they are called.
	Guard *outbound.Guard
	// Client sends deliveries; nil is Guard.Client() without redirects
	// (a redirect is an answer other than 2xx).
	Client      *http.Client
	Timeout     time.Duration
	Backoff     []time.Duration
	GiveUpAfter time.Duration
	// CacheTTL is how long an account's endpoints are remembered for
	// Emit, so the chat path reads them once per TTL, not once per
	// message. An endpoint added on another instance gets events from it
	// at most this late.
	CacheTTL time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
	// Audit logs endpoints created and deleted and test events sent
	// (audit.WebhookCreate, WebhookDelete, WebhookTest), whether through
	// the management API or the dashboard; nil logs nothing.
	Audit *audit.Service
}

// Service is the webhooks' rules.
type Service struct {
	o      Options
	client *http.Client

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	hooks []store.Webhook
	at    time.Time
}

// New returns a Service.
func New(o Options) *Service {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if len(o.Backoff) == 0 {
		o.Backoff = DefaultBackoff
	}
	if o.GiveUpAfter == 0 {
		o.GiveUpAfter = DefaultGiveUpAfter
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Guard == nil {
		o.Guard = outbound.New(outbound.Options{})
	}
	c := o.Client
	if c == nil {
		c = o.Guard.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return &Service{o: o, client: c, cache: map[string]cached{}}
}

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

// Event is what an endpoint receives, as JSON.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Data      any       `json:"data"`
}

func (s *Service) event(typ string, data any) Event {
	return Event{ID: secret.ID("evt_", 12), Type: typ, CreatedAt: store.StoredTime(s.o.Now()), Data: data}
}

// Emit queues an event for every endpoint of the account subscribed to
// its type. The account's endpoints come from a short cache (CacheTTL):
// an account without endpoints costs a map lookup. Errors are logged, not
// returned: an event never fails the action it reports.
func (s *Service) Emit(ctx context.Context, accountID, typ string, data any) {
	hooks, err := s.endpoints(ctx, accountID)
	if err != nil {
		s.o.Logger.Warn("webhooks: read endpoints", "account", accountID, "err", err)
		return
	}
	var ev *Event
	for _, w := range hooks {
		if !w.Wants(typ) {
			continue
		}
		if ev == nil {
			e := s.event(typ, data)
			ev = &e
		}
		if _, err := s.queue(ctx, w, *ev); err != nil && !errors.Is(err, domain.ErrNotFound) {
			s.o.Logger.Warn("webhooks: queue event", "webhook", w.ID, "type", typ, "err", err)
		}
	}
}

func (s *Service) endpoints(ctx context.Context, accountID string) ([]store.Webhook, error) {
	now := s.o.Now()
	s.mu.Lock()
	c, ok := s.cache[accountID]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < s.o.CacheTTL && !now.Before(c.at) {
		return c.hooks, nil
	}
	hooks, err := s.o.Store.Webhooks(ctx, accountID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.cache[accountID] = cached{hooks: hooks, at: now}
	s.mu.Unlock()
	return hooks, nil
}

func (s *Service) forget(accountID string) {
	s.mu.Lock()
	delete(s.cache, accountID)
	s.mu.Unlock()
}

func (s *Service) queue(ctx context.Context, w store.Webhook, ev Event) (store.Delivery, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return store.Delivery{}, err
	}
	d, err := s.o.Store.AddDelivery(ctx, store.NewDelivery{WebhookID: w.ID, EventID: ev.ID, Type: ev.Type, Body: body, At: ev.CreatedAt})
	if err != nil {
		return store.Delivery{}, err
	}
	if err := s.o.Queue.EnqueueWebhook(ctx, w.ID); err != nil {
		// The delivery is stored: the sweep queues its flush later.
		s.o.Logger.Warn("webhooks: queue flush", "webhook", w.ID, "err", err)
	}
	return d, nil
}

// Sign is the v1 signature of body sent at t: hex HMAC-SHA256 of
// "<unix seconds>.<body>" under secret.
func Sign(secret string, t time.Time, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t.Unix(), 10)))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// SignatureHeader is the Parley-Signature header's value.
func SignatureHeader(secret string, t time.Time, body []byte) string {
	return "t=" + strconv.FormatInt(t.Unix(), 10) + ",v1=" + Sign(secret, t, body)
}

// Retry says when to flush an endpoint again: its head delivery failed
// and waits for its next attempt.
type Retry struct{ After time.Duration }

func (r *Retry) Error() string { return "webhooks: retry in " + r.After.String() }

// Flush sends the endpoint's pending deliveries, oldest first, until none
// is left (nil when it found none at all, else *Retry after Recheck to look
// again), one fails and must wait (*Retry), or a batch is sent (*Retry
// with After 0: run again at once). A gone endpoint has nothing to send.
func (s *Service) Flush(ctx context.Context, webhookID string) error {
	w, err := s.o.Store.WebhookByID(ctx, webhookID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	for i := range batch {
		d, err := s.o.Store.NextDelivery(ctx, webhookID)
		if errors.Is(err, domain.ErrNotFound) {
			if i > 0 {
				// An event added while this flush ran found it queued
				// (running) and queued nothing; it may have come after
				// the read above. Look once more shortly: a flush ends
				// only after a run that found nothing to send, which
				// leaves a window of milliseconds rather than a whole
				// delivery's; the sweep covers that.
				return &Retry{After: Recheck}
			}
			return nil
		} else if err != nil {
			return err
		}
		if wait := s.due(d); wait > 0 {
			return &Retry{After: wait}
		}
		code, sendErr := s.send(ctx, w, d)
		now := s.o.Now()
		a := store.DeliveryAttempt{Status: store.DeliveryDelivered, ResponseCode: code, At: now}
		if sendErr != nil {
			a.Error = sendErr.Error()
			a.Status = store.DeliveryPending
			if now.Sub(d.CreatedAt) >= s.o.GiveUpAfter {
				a.Status = store.DeliveryFailed
			}
		}
		d, err = s.o.Store.RecordAttempt(ctx, d.ID, a)
		if errors.Is(err, domain.ErrNotFound) {
			return nil // the endpoint was deleted meanwhile
		} else if err != nil {
			return err
		}
		if d.Status == store.DeliveryPending {
			return &Retry{After: s.backoff(d.Attempt)}
		}
	}
	return &Retry{}
}

// due is how long the delivery still waits for its next attempt after a
// failed one (zero: now). It counts from the last attempt, so a flush
// that runs early (a restart, a new event) does not send it early.
func (s *Service) due(d store.Delivery) time.Duration {
	if d.Attempt == 0 {
		return 0
	}
	return max(d.UpdatedAt.Add(s.backoff(d.Attempt)).Sub(s.o.Now()), 0)
}

func (s *Service) backoff(attempt int) time.Duration {
	return s.o.Backoff[min(max(attempt, 1), len(s.o.Backoff))-1]
}

// send makes one attempt: the HTTP status (0 for none) and an error unless
// it was 2xx.
func (s *Service) send(ctx context.Context, w store.Webhook, d store.Delivery) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Parley-Webhooks/1")
	req.Header.Set("Parley-Signature", SignatureHeader(w.Secret, s.o.Now(), d.Body))
	req.Header.Set("Parley-Event-Id", d.EventID)
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("no answer within %s", s.o.Timeout)
		}
		var r *outbound.Refusal
		if errors.As(err, &r) {
			return 0, r
		}
		return 0, errors.New("request failed: " + trimErr(err))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

func trimErr(err error) string {
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}

// Sweep queues a flush of every endpoint with a delivery pending for more
// than a minute: a flush that ended just before an event's was queued,
// or a queue that refused it, leaves it pending.
func (s *Service) Sweep(ctx context.Context) error {
	ids, err := s.o.Store.PendingWebhooks(ctx, s.o.Now().Add(-time.Minute), 1000)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.o.Queue.EnqueueWebhook(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// FlushJob adapts Flush to the job queue: a *Retry becomes snooze(After)
// (jobs.Snooze), which runs the job again then without counting a failure.
func (s *Service) FlushJob(snooze func(time.Duration) error) func(ctx context.Context, webhookID string) error {
	return func(ctx context.Context, webhookID string) error {
		err := s.Flush(ctx, webhookID)
		var r *Retry
		if errors.As(err, &r) {
			return snooze(r.After)
		}
		return err
	}
}

// NextAttempt is when a pending delivery that has failed is tried again
// (ok false for a delivery not yet tried, delivered or given up). The
// flush may send it later still when a delivery before it is waiting.
func (s *Service) NextAttempt(d store.Delivery) (time.Time, bool) {
	if d.Status != store.DeliveryPending || d.Attempt == 0 {
		return time.Time{}, false
	}
	return d.UpdatedAt.Add(s.backoff(d.Attempt)), true
}
