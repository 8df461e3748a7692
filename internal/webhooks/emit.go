package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// Events: what an endpoint receives, and Emit, which writes one pending
// delivery per subscribed endpoint and queues their flushes.

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
