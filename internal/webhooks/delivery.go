package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/store"
)

// Delivery: the signature, the flush that sends an endpoint's pending
// deliveries in order with backoff, the sweep, and the job adapter.

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
