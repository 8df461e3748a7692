package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

const webhookCols = `id, account_id, url, events, secret, created_at`

func scanWebhook(row pgx.Row) (store.Webhook, error) {
	var w store.Webhook
	var events string
	if err := row.Scan(&w.ID, &w.AccountID, &w.URL, &events, &w.Secret, &w.CreatedAt); err != nil {
		return store.Webhook{}, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return store.Webhook{}, fmt.Errorf("webhook %s events: %w", w.ID, err)
	}
	w.CreatedAt = ms(w.CreatedAt)
	return w, nil
}

const deliveryCols = `id, webhook_id, event_id, type, body, attempt, status, response_code, error, created_at, updated_at`

func scanDelivery(row pgx.Row) (store.Delivery, error) {
	var d store.Delivery
	if err := row.Scan(&d.ID, &d.WebhookID, &d.EventID, &d.Type, &d.Body, &d.Attempt, &d.Status, &d.ResponseCode, &d.Error, &d.CreatedAt, &d.UpdatedAt); err != nil {
		return store.Delivery{}, err
	}
	d.CreatedAt, d.UpdatedAt = ms(d.CreatedAt), ms(d.UpdatedAt)
	return d, nil
}

// CreateWebhook locks the account's row, so concurrent creations count
// one after another and cannot pass the bound together.
func (s *Store) CreateWebhook(ctx context.Context, n store.NewWebhook) (store.Webhook, error) {
	w, err := n.Build(now())
	if err != nil {
		return store.Webhook{}, err
	}
	events, err := json.Marshal(w.Events)
	if err != nil {
		return store.Webhook{}, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, w.AccountID); err != nil {
			return err
		}
		if err := belowLimit(ctx, tx, store.MaxWebhooksPerAccount, store.ErrWebhookLimit,
			`SELECT count(*) FROM webhooks WHERE account_id = $1`, w.AccountID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhooks (`+webhookCols+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			w.ID, w.AccountID, w.URL, string(events), w.Secret, w.CreatedAt)
		return err
	})
	if err != nil {
		return store.Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	return w, nil
}

func (s *Store) Webhook(ctx context.Context, accountID, webhookID string) (store.Webhook, error) {
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1 AND account_id = $2`, webhookID, accountID))
	return w, notFound(err, domain.ErrNotFound)
}

func (s *Store) WebhookByID(ctx context.Context, webhookID string) (store.Webhook, error) {
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1`, webhookID))
	return w, notFound(err, domain.ErrNotFound)
}

func (s *Store) Webhooks(ctx context.Context, accountID string) ([]store.Webhook, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	out, err := pgx.CollectRows(rows, rowTo(scanWebhook))
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) DeleteWebhook(ctx context.Context, accountID, webhookID string) error {
	return rowsAffected(s.pool.Exec(ctx, `DELETE FROM webhooks WHERE id = $1 AND account_id = $2`, webhookID, accountID))
}

func (s *Store) AddDelivery(ctx context.Context, n store.NewDelivery) (store.Delivery, error) {
	d, err := n.Build()
	if err != nil {
		return store.Delivery{}, err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO webhook_deliveries (`+deliveryCols+`) VALUES ($1, $2, $3, $4, $5, 0, $6, 0, '', $7, $8)`,
		d.ID, d.WebhookID, d.EventID, d.Type, d.Body, d.Status, d.CreatedAt, d.UpdatedAt)
	if err != nil {
		return store.Delivery{}, fmt.Errorf("add delivery: %w", dbErr(err))
	}
	return d, nil
}

func (s *Store) NextDelivery(ctx context.Context, webhookID string) (store.Delivery, error) {
	d, err := scanDelivery(s.pool.QueryRow(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries
		WHERE webhook_id = $1 AND status = 'pending' ORDER BY seq LIMIT 1`, webhookID))
	return d, notFound(err, domain.ErrNotFound)
}

func (s *Store) RecordAttempt(ctx context.Context, deliveryID string, r store.DeliveryAttempt) (store.Delivery, error) {
	var d store.Delivery
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		d, err = scanDelivery(tx.QueryRow(ctx, `UPDATE webhook_deliveries
			SET attempt = attempt + 1, status = $1, response_code = $2, error = $3, updated_at = $4
			WHERE id = $5 RETURNING `+deliveryCols, r.Status, r.ResponseCode, r.Error, ms(r.At), deliveryID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if d.Status == store.DeliveryPending {
			return nil
		}
		_, err = tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'pending' AND seq NOT IN (
			SELECT seq FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'pending' ORDER BY seq DESC LIMIT $2)`,
			d.WebhookID, store.DeliveryLogSize)
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
	rows, _ := s.pool.Query(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq DESC LIMIT $2`,
		webhookID, store.ClampDeliveries(limit))
	out, err := pgx.CollectRows(rows, rowTo(scanDelivery))
	if err != nil {
		return nil, fmt.Errorf("deliveries: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) PendingWebhooks(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT webhook_id FROM webhook_deliveries
		WHERE status = 'pending' AND created_at < $1 LIMIT $2`, ms(before), limit)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pending webhooks: %w", dbErr(err))
	}
	return out, nil
}
