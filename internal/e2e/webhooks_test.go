package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/internal/store"
	"parley/internal/webhooks"
)

// TestDashboardWebhooks drives the Webhooks page with the keyboard: the
// list, an endpoint's page with its secret disclosed and a test event
// sent, and screenshots of both (docs/dashboard.md). The endpoint and its
// earlier deliveries are written to the store directly, so the log shows
// each status without a receiver on the network.
func TestDashboardWebhooks(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	dashboardUsers(t, s)
	ctx := context.Background()
	owner := mustOwner(t, s)
	hook, err := s.store.CreateWebhook(ctx, store.NewWebhook{AccountID: owner.AccountID, URL: "https://crm.northwind.example/hooks/parley",
		Events: []string{webhooks.ConversationStarted, webhooks.ConversationWaiting}, Secret: "whsec_screenshotsecret0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.store.CreateWebhook(ctx, store.NewWebhook{AccountID: owner.AccountID, URL: "https://ops.northwind.example/parley-usage",
		Events: []string{webhooks.UsageThreshold}, Secret: "whsec_other"}); err != nil {
		t.Fatal(err)
	}
	// A delivered event, then one that failed twice and waits.
	t0 := time.Now().Add(-45 * time.Minute).UTC()
	for i, a := range []store.DeliveryAttempt{
		{Status: store.DeliveryDelivered, ResponseCode: 200, At: t0.Add(time.Second)},
		{Status: store.DeliveryPending, ResponseCode: 503, Error: "HTTP 503", At: t0.Add(44 * time.Minute)},
	} {
		d, err := s.store.AddDelivery(ctx, store.NewDelivery{WebhookID: hook.ID, EventID: "evt_" + string(rune('a'+i)), Type: []string{webhooks.ConversationStarted, webhooks.ConversationWaiting}[i],
			Body: []byte(`{}`), At: t0.Add(time.Duration(i) * 30 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if a.Status == store.DeliveryPending {
			if _, err := s.store.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Status: store.DeliveryPending, Error: "no answer within 10s", At: t0.Add(31 * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.store.RecordAttempt(ctx, d.ID, a); err != nil {
			t.Fatal(err)
		}
	}

	p := newPage(t, 90*time.Second)
	p.do(chromedp.EmulateViewport(1280, 900))
	shot := func(name string) {
		t.Helper()
		checkAxe(t, p, name)
		file := "dashboard-" + name + ".png"
		b := recompress(t, capture(p, file, true, dashboardProbes))
		if err := os.WriteFile(filepath.Join(t.ArtifactDir(), file), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
			if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/webhooks")
	settle(p, "the webhooks page", `!!document.querySelector('#hook-url')`)
	// Every form control has a label.
	if n := eval[int](p, `[...document.querySelectorAll('main input, main select, main textarea')].filter(e => e.type != 'hidden' && !(e.labels && e.labels.length)).length`); n != 0 {
		t.Errorf("%d controls without a label", n)
	}
	shot("webhooks-en")

	p.navigate(s.srv.URL + "/webhooks/" + hook.ID)
	settle(p, "the endpoint page", `!!document.querySelector('details summary')`)
	// The secret's disclosure opens from the keyboard.
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('details summary')`)))
	p.keys(kb.Enter)
	settle(p, "the secret", `document.querySelector('details').open`)
	// Send test event with the keyboard: back with the notice and the
	// event queued at the top of the log.
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('form[action$="/test"] button')`)))
	p.keys(kb.Enter)
	settle(p, "the notice", `!!document.querySelector('.flash') && document.readyState == 'complete'`)
	if first := eval[string](p, `document.querySelector('table.deliveries tbody tr').textContent`); !strings.Contains(first, "webhook.test") || !strings.Contains(first, "Pending") {
		t.Errorf("the newest delivery is %q, want the pending test event", first)
	}
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('details summary')`)))
	p.keys(kb.Enter)
	settle(p, "the secret", `document.querySelector('details').open`)
	shot("webhook-en")
	p.checkConsole()
}
