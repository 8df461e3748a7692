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
//
// Files by job: webhooks.go (the options and the service), endpoints.go
// (registering and managing endpoints), emit.go (events into pending
// deliveries) and delivery.go (signing and sending them).
package webhooks

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"parley/internal/audit"
	"parley/internal/outbound"
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
