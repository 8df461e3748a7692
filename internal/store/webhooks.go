package store

import (
	"context"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
)

// Webhooks are an account's signed webhook endpoints (issue 18) and each
// endpoint's delivery log. Package webhooks holds the rules (which events
// exist, which URLs are allowed, the signature); the store keeps the rows
// and the two bounds that must hold under concurrency: at most
// MaxWebhooksPerAccount endpoints per account (CreateWebhook checks it in
// its transaction) and at most DeliveryLogSize finished deliveries per
// endpoint (AddDelivery and FinishDelivery trim the oldest). Pending
// deliveries are never trimmed: they are the endpoint's queue.
//
// Another account's endpoint is domain.ErrNotFound. Deleting an endpoint
// deletes its log, pending deliveries included.
type Webhooks interface {
	// CreateWebhook adds an endpoint with a fresh "wh_" id;
	// ErrWebhookLimit past the bound.
	CreateWebhook(ctx context.Context, n NewWebhook) (Webhook, error)
	Webhook(ctx context.Context, accountID, webhookID string) (Webhook, error)
	// WebhookByID is any account's endpoint: for the job worker.
	WebhookByID(ctx context.Context, webhookID string) (Webhook, error)
	Webhooks(ctx context.Context, accountID string) ([]Webhook, error) // oldest first
	DeleteWebhook(ctx context.Context, accountID, webhookID string) error
	// AddDelivery queues one event for one endpoint: a pending delivery
	// with a fresh "dlv_" id and attempt 0. ErrNotFound when the endpoint
	// is gone.
	AddDelivery(ctx context.Context, d NewDelivery) (Delivery, error)
	// NextDelivery is the endpoint's oldest pending delivery (the order
	// they were added); ErrNotFound when none is pending.
	NextDelivery(ctx context.Context, webhookID string) (Delivery, error)
	// RecordAttempt stores the outcome of one attempt of a delivery: its
	// attempt count goes up by one and its status, response code, error
	// and UpdatedAt become r's. A delivery no longer pending trims the
	// endpoint's log to DeliveryLogSize finished ones.
	RecordAttempt(ctx context.Context, deliveryID string, r DeliveryAttempt) (Delivery, error)
	// Deliveries lists an endpoint's log, newest first, at most limit
	// (ClampDeliveries).
	Deliveries(ctx context.Context, accountID, webhookID string, limit int) ([]Delivery, error)
	// PendingWebhooks lists the ids of endpoints that have a pending
	// delivery added before before: the sweep that re-queues a flush a
	// race may have missed.
	PendingWebhooks(ctx context.Context, before time.Time, limit int) ([]string, error)
}

// Bounds of webhooks.
const (
	MaxWebhooksPerAccount = 20
	DeliveryLogSize       = 100
)

// ErrWebhookLimit: the account has MaxWebhooksPerAccount endpoints.
var ErrWebhookLimit error = &domain.InvalidError{Msg: "an account can have at most 20 webhook endpoints"}

// Webhook is one endpoint.
type Webhook struct {
	ID        string
	AccountID string
	URL       string
	Events    []string
	Secret    string
	CreatedAt time.Time
}

// Wants says whether the endpoint subscribed to the event type.
func (w Webhook) Wants(eventType string) bool {
	for _, e := range w.Events {
		if e == eventType {
			return true
		}
	}
	return false
}

// NewWebhook is an endpoint to create; package webhooks has checked the
// URL, the events and made the secret.
type NewWebhook struct {
	AccountID string
	URL       string
	Events    []string
	Secret    string
}

// Build makes the endpoint as created at.
func (n NewWebhook) Build(at time.Time) (Webhook, error) {
	if err := CheckText(append([]string{n.AccountID, n.URL, n.Secret}, n.Events...)...); err != nil {
		return Webhook{}, err
	}
	return Webhook{ID: secret.ID("wh_", 10), AccountID: n.AccountID, URL: n.URL,
		Events: append([]string{}, n.Events...), Secret: n.Secret, CreatedAt: StoredTime(at)}, nil
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one event sent (or to be sent) to one endpoint.
type Delivery struct {
	ID           string
	WebhookID    string
	EventID      string
	Type         string
	Body         []byte // the exact JSON body sent, signed as is
	Attempt      int    // attempts made so far
	Status       string
	ResponseCode int // the last attempt's HTTP status; 0 when it got none
	Error        string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NewDelivery is an event to queue for an endpoint.
type NewDelivery struct {
	WebhookID string
	EventID   string
	Type      string
	Body      []byte
	At        time.Time
}

// Build makes the pending delivery.
func (n NewDelivery) Build() (Delivery, error) {
	if err := CheckText(n.WebhookID, n.EventID, n.Type, string(n.Body)); err != nil {
		return Delivery{}, err
	}
	at := StoredTime(n.At)
	return Delivery{ID: secret.ID("dlv_", 12), WebhookID: n.WebhookID, EventID: n.EventID, Type: n.Type,
		Body: n.Body, Status: DeliveryPending, CreatedAt: at, UpdatedAt: at}, nil
}

// DeliveryAttempt is the outcome of one attempt.
type DeliveryAttempt struct {
	Status       string // pending (to be tried again), delivered or failed
	ResponseCode int
	Error        string
	At           time.Time
}

// ClampDeliveries bounds a Deliveries limit.
func ClampDeliveries(limit int) int {
	if limit <= 0 || limit > DeliveryLogSize {
		return DeliveryLogSize
	}
	return limit
}
