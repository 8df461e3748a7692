package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

const webhookCols = `id, account_id, url, events, secret, created_at`

func scanWebhook(sc scanner) (store.Webhook, error) {
	var w store.Webhook
	var events string
	var created int64
	if err := sc.Scan(&w.ID, &w.AccountID, &w.URL, &events, &w.Secret, &created); err != nil {
		return store.Webhook{}, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return store.Webhook{}, fmt.Errorf("webhook %s events: %w", w.ID, err)
	}
	w.CreatedAt = fromMillis(created)
	return w, nil
}

const deliveryCols = `id, webhook_id, event_id, type, body, attempt, status, response_code, error, created_at, updated_at`

func scanDelivery(sc scanner) (store.Delivery, error) {
	var d store.Delivery
	var created, updated int64
	if err := sc.Scan(&d.ID, &d.WebhookID, &d.EventID, &d.Type, &d.Body, &d.Attempt, &d.Status, &d.ResponseCode, &d.Error, &created, &updated); err != nil {
		return store.Delivery{}, err
	}
	d.CreatedAt, d.UpdatedAt = fromMillis(created), fromMillis(updated)
	return d, nil
}

// CreateWebhook counts the account's endpoints and inserts in one write,
// so concurrent creations cannot pass the bound together.
func (s *Store) CreateWebhook(ctx context.Context, n store.NewWebhook) (store.Webhook, error) {
	w, err := n.Build(now())
	if err != nil {
		return store.Webhook{}, err
	}
	events, err := json.Marshal(w.Events)
	if err != nil {
		return store.Webhook{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := belowLimit(ctx, tx, store.MaxWebhooksPerAccount, store.ErrWebhookLimit,
			`SELECT count(*) FROM webhooks WHERE account_id = ?`, w.AccountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (`+webhookCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
			w.ID, w.AccountID, w.URL, string(events), w.Secret, millis(w.CreatedAt))
		return err
	})
	if err != nil {
		return store.Webhook{}, fmt.Errorf("create webhook: %w", constraintErr(err))
	}
	return w, nil
}

func (s *Store) Webhook(ctx context.Context, accountID, webhookID string) (store.Webhook, error) {
	w, err := scanWebhook(s.queryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = ? AND account_id = ?`, webhookID, accountID))
	return w, notFound(err, domain.ErrNotFound)
}

func (s *Store) WebhookByID(ctx context.Context, webhookID string) (store.Webhook, error) {
	w, err := scanWebhook(s.queryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = ?`, webhookID))
	return w, notFound(err, domain.ErrNotFound)
}

func (s *Store) Webhooks(ctx context.Context, accountID string) ([]store.Webhook, error) {
	out, err := queryAll(ctx, s, scanWebhook, `SELECT `+webhookCols+` FROM webhooks WHERE account_id = ? ORDER BY created_at, rowid`, accountID)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	return out, nil
}

func (s *Store) DeleteWebhook(ctx context.Context, accountID, webhookID string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		return oneRow(tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ? AND account_id = ?`, webhookID, accountID))
	})
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return nil
}

func (s *Store) AddDelivery(ctx context.Context, n store.NewDelivery) (store.Delivery, error) {
	d, err := n.Build()
	if err != nil {
		return store.Delivery{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (`+deliveryCols+`) VALUES (?, ?, ?, ?, ?, 0, ?, 0, '', ?, ?)`,
			d.ID, d.WebhookID, d.EventID, d.Type, d.Body, d.Status, millis(d.CreatedAt), millis(d.UpdatedAt))
		return err
	})
	if err != nil {
		return store.Delivery{}, fmt.Errorf("add delivery: %w", constraintErr(err))
	}
	return d, nil
}

func (s *Store) NextDelivery(ctx context.Context, webhookID string) (store.Delivery, error) {
	d, err := scanDelivery(s.queryRow(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries
		WHERE webhook_id = ? AND status = 'pending' ORDER BY seq LIMIT 1`, webhookID))
	return d, notFound(err, domain.ErrNotFound)
}

func (s *Store) RecordAttempt(ctx context.Context, deliveryID string, r store.DeliveryAttempt) (store.Delivery, error) {
	var d store.Delivery
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		d, err = scanDelivery(tx.QueryRowContext(ctx, `UPDATE webhook_deliveries
			SET attempt = attempt + 1, status = ?, response_code = ?, error = ?, updated_at = ?
			WHERE id = ? RETURNING `+deliveryCols, r.Status, r.ResponseCode, r.Error, millis(r.At), deliveryID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if d.Status == store.DeliveryPending {
			return nil
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = ? AND status <> 'pending' AND seq NOT IN (
			SELECT seq FROM webhook_deliveries WHERE webhook_id = ? AND status <> 'pending' ORDER BY seq DESC LIMIT `+limitArg+`)`,
			d.WebhookID, d.WebhookID, store.DeliveryLogSize)
		return err
	})
	if err != nil {
		return store.Delivery{}, fmt.Errorf("record delivery attempt: %w", err)
	}
	return d, nil
}

func (s *Store) Deliveries(ctx context.Context, accountID, webhookID string, limit int) ([]store.Delivery, error) {
	if _, err := s.Webhook(ctx, accountID, webhookID); err != nil {
		return nil, err
	}
	out, err := queryAll(ctx, s, scanDelivery, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT `+limitArg,
		webhookID, store.ClampDeliveries(limit))
	if err != nil {
		return nil, fmt.Errorf("deliveries: %w", err)
	}
	return out, nil
}

func (s *Store) PendingWebhooks(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, err := s.query(ctx, `SELECT DISTINCT webhook_id FROM webhook_deliveries
		WHERE status = 'pending' AND created_at < ? LIMIT `+limitArg, millis(before), limit)
	if err != nil {
		return nil, fmt.Errorf("pending webhooks: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("pending webhooks: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
