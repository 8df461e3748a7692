package manageapi

import (
	"net/http"
	"strconv"
	"time"

	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/store"
	"parley/internal/webhooks"
)

// Signed webhooks (issue 18). The rules are package webhooks'; these
// handlers decode, call and encode.
//
// The secret is in the answer to POST and to GET /api/v1/webhooks/{id}
// (on demand, as Stripe reveals it), never in the list: a list is what
// gets pasted into tickets and logs.

// WithWebhooks serves the account's webhook endpoints through svc; without
// it the routes answer 404.
func (a *API) WithWebhooks(svc *webhooks.Service) *API {
	a.webhooks = svc
	return a
}

type webhookJSON struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	Secret    string    `json:"secret,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

func toWebhookJSON(w store.Webhook, withSecret bool) webhookJSON {
	out := webhookJSON{ID: w.ID, URL: w.URL, Events: w.Events, CreatedAt: w.CreatedAt}
	if withSecret {
		out.Secret = w.Secret
	}
	return out
}

type deliveryJSON struct {
	ID           string    `json:"id"`
	EventID      string    `json:"event_id"`
	Type         string    `json:"type"`
	Status       string    `json:"status"`
	Attempt      int       `json:"attempt"`
	ResponseCode int       `json:"response_code"`
	Error        string    `json:"error"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func toDeliveryJSON(d store.Delivery) deliveryJSON {
	return deliveryJSON{ID: d.ID, EventID: d.EventID, Type: d.Type, Status: d.Status, Attempt: d.Attempt,
		ResponseCode: d.ResponseCode, Error: d.Error, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

func (a *API) webhooksOn(w http.ResponseWriter, r *http.Request) bool {
	if a.webhooks == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return false
	}
	return true
}

func (a *API) CreateWebhook(w http.ResponseWriter, r *http.Request) {
	if !a.webhooksOn(w, r) {
		return
	}
	var in struct {
		URL    string   `json:"url"`
		Events []string `json:"events"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	wh, err := a.webhooks.Create(r.Context(), account(r).ID, in.URL, in.Events)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/webhooks/"+wh.ID)
	httpx.JSON(w, http.StatusCreated, toWebhookJSON(wh, true))
}

func (a *API) ListWebhooks(w http.ResponseWriter, r *http.Request) {
	if !a.webhooksOn(w, r) {
		return
	}
	list, err := a.webhooks.List(r.Context(), account(r).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]webhookJSON, 0, len(list))
	for _, wh := range list {
		out = append(out, toWebhookJSON(wh, false))
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"webhooks": out})
}

func (a *API) GetWebhook(w http.ResponseWriter, r *http.Request) {
	if !a.webhooksOn(w, r) {
		return
	}
	wh, err := a.webhooks.Get(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toWebhookJSON(wh, true))
}

func (a *API) DeleteWebhook(w http.ResponseWriter, r *http.Request) {
	if !a.webhooksOn(w, r) {
		return
	}
	if err := a.webhooks.Delete(r.Context(), account(r).ID, r.PathValue("id")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// WebhookDeliveries is the endpoint's delivery log, newest first;
// ?limit=N (1 to 100, default 100).
func (a *API) WebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	if !a.webhooksOn(w, r) {
		return
	}
	limit := 0
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.DeliveryLogSize {
			httpx.Error(w, r, domain.Invalid("limit must be an integer from 1 to 100"))
			return
		}
		limit = n
	}
	ds, err := a.webhooks.Deliveries(r.Context(), account(r).ID, r.PathValue("id"), limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]deliveryJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, toDeliveryJSON(d))
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"deliveries": out})
}

// TestWebhook queues a webhook.test event to the endpoint: 202 with the
// pending delivery.
func (a *API) TestWebhook(w http.ResponseWriter, r *http.Request) {
	if !a.webhooksOn(w, r) {
		return
	}
	d, err := a.webhooks.SendTest(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusAccepted, toDeliveryJSON(d))
}
