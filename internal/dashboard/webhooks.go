package dashboard

import (
	"errors"
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
	"parley/internal/webhooks"
)

// Signed webhooks (issue 18), for owners: the account's endpoints, a form
// to add one, and per endpoint its delivery log, its secret behind a
// disclosure and a "send test event" button. The rules are package
// webhooks', as for /api/v1/webhooks; these handlers only read the form
// and word the result.

// deliveryLogSize is how many deliveries the endpoint page lists, newest
// first.
const deliveryLogSize = 50

// webhooksData is the list page.
type webhooksData struct {
	Hooks      []store.Webhook
	EventTypes []string
	// The add form's values after an error.
	URL    string
	Events map[string]bool
	// New is an endpoint just created, shown with its secret on this one
	// response (the secret is not put in a URL).
	New *store.Webhook
}

// webhookData is an endpoint's page.
type webhookData struct {
	Hook       store.Webhook
	Deliveries []deliveryRow
}

type deliveryRow struct {
	store.Delivery
	Next    time.Time
	HasNext bool
}

// hooksOn answers 404 when the dashboard has no webhooks service.
func (d *Dashboard) hooksOn(w http.ResponseWriter, r *http.Request) bool {
	if d.Webhooks == nil {
		d.fail(w, r, domain.ErrNotFound)
		return false
	}
	return true
}

// WebhooksPage lists the account's endpoints with the add form.
func (d *Dashboard) WebhooksPage(w http.ResponseWriter, r *http.Request) {
	if d.hooksOn(w, r) {
		d.showWebhooks(w, r, http.StatusOK, webhooksData{}, "", nil)
	}
}

func (d *Dashboard) showWebhooks(w http.ResponseWriter, r *http.Request, status int, data webhooksData, errKey string, errArgs []any) {
	hooks, err := d.Webhooks.List(r.Context(), user(r).AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data.Hooks, data.EventTypes = hooks, webhooks.EventTypes
	d.render(w, r, status, "webhooks", view{Title: "webhooks.title", Nav: "webhooks", Error: errKey, ErrorArgs: errArgs, Data: data})
}

// CreateWebhook registers an endpoint and shows its secret once.
func (d *Dashboard) CreateWebhook(w http.ResponseWriter, r *http.Request) {
	if !d.hooksOn(w, r) {
		return
	}
	if status, key := readForm(w, r, maxForm); key != "" {
		d.showWebhooks(w, r, status, webhooksData{}, key, nil)
		return
	}
	form := webhooksData{URL: r.PostFormValue("url"), Events: map[string]bool{}}
	events := r.PostForm["events"]
	for _, e := range events {
		form.Events[e] = true
	}
	hook, err := d.Webhooks.Create(r.Context(), user(r).AccountID, form.URL, events)
	var in *webhooks.InputError
	if errors.As(err, &in) {
		var args []any
		if in.Reason == webhooks.ReasonURLRefused {
			args = []any{T(language(r), "outbound."+in.Class)}
		}
		d.showWebhooks(w, r, http.StatusBadRequest, form, "webhooks.err."+in.Reason, args)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.showWebhooks(w, r, http.StatusCreated, webhooksData{New: &hook}, "", nil)
}

// Webhook is an endpoint's page: its delivery log, newest first.
func (d *Dashboard) Webhook(w http.ResponseWriter, r *http.Request) {
	if !d.hooksOn(w, r) {
		return
	}
	acc, id := user(r).AccountID, r.PathValue("id")
	hook, err := d.Webhooks.Get(r.Context(), acc, id)
	if err != nil {
		d.fail(w, r, err) // another account's endpoint is ErrNotFound: 404
		return
	}
	ds, err := d.Webhooks.Deliveries(r.Context(), acc, id, deliveryLogSize)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data := webhookData{Hook: hook}
	for _, dl := range ds {
		row := deliveryRow{Delivery: dl}
		row.Next, row.HasNext = d.Webhooks.NextAttempt(dl)
		data.Deliveries = append(data.Deliveries, row)
	}
	d.render(w, r, http.StatusOK, "webhook", view{Title: "webhooks.endpoint", Nav: "webhooks", Data: data})
}

// SendTestWebhook queues a webhook.test event to the endpoint.
func (d *Dashboard) SendTestWebhook(w http.ResponseWriter, r *http.Request) {
	if !d.hooksOn(w, r) {
		return
	}
	id := r.PathValue("id")
	if _, err := d.Webhooks.SendTest(r.Context(), user(r).AccountID, id); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/webhooks/"+id+"?flash=webhooks.testsent", http.StatusSeeOther)
}

// DeleteWebhookPage asks before deleting an endpoint.
func (d *Dashboard) DeleteWebhookPage(w http.ResponseWriter, r *http.Request) {
	if !d.hooksOn(w, r) {
		return
	}
	hook, err := d.Webhooks.Get(r.Context(), user(r).AccountID, r.PathValue("id"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "webhookdelete", view{Title: "webhooks.deletetitle", Nav: "webhooks", Data: hook})
}

// DeleteWebhook removes an endpoint with its delivery log.
func (d *Dashboard) DeleteWebhook(w http.ResponseWriter, r *http.Request) {
	if !d.hooksOn(w, r) {
		return
	}
	if err := d.Webhooks.Delete(r.Context(), user(r).AccountID, r.PathValue("id")); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/webhooks?flash=webhooks.deleted", http.StatusSeeOther)
}
