package dashboard

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/internal/hours"
	"parley/internal/mail"
	"parley/internal/offline"
)

// offlineRoutes: allRoutes with the team page and the settings of issue 19.
func offlineRoutes(mux *http.ServeMux, d *Dashboard) {
	allRoutes(mux, d)
	mux.HandleFunc("GET /team", d.Owner(d.Team))
	mux.HandleFunc("POST /team/hours", d.Owner(d.SetHours))
	mux.HandleFunc("POST /account/wait-alert", d.User(d.SetWaitAlert))
}

// mailOn stands for configured e-mail: MailEnabled needs a sender and a
// queue; these tests send nothing.
type mailOn struct{}

func (mailOn) Send(context.Context, mail.Message) error                          { return nil }
func (mailOn) EnqueueWaitAlert(context.Context, string, string, time.Time) error { return nil }
func (mailOn) EnqueueReplyMail(context.Context, string, time.Time) error         { return nil }

func newOfflineDash(t *testing.T, withMail bool) *testDash {
	td := newTestDash(t, offlineRoutes)
	o := offline.Options{Store: td.st, Logger: slog.New(slog.DiscardHandler)}
	if withMail {
		o.Mail, o.Queue = mailOn{}, mailOn{}
	}
	td.d.Offline = offline.New(o)
	return td
}

// hoursForm is a full business hours form: Monday to Friday open/close,
// the weekend closed.
func hoursValues(zone, open, close string) url.Values {
	v := url.Values{"enabled": {"1"}, "time_zone": {zone}}
	for _, d := range []string{"1", "2", "3", "4", "5"} {
		v.Set("open_"+d, open)
		v.Set("close_"+d, close)
	}
	v.Set("closed_0", "1")
	v.Set("closed_6", "1")
	return v
}

// The team page's business hours form: owners save valid hours (an
// overnight range included), an unknown time zone or a bad time is
// refused with a translated message and the posted values kept, and an
// operator can neither see nor post the form.
func TestBusinessHoursForm(t *testing.T) {
	t.Parallel()
	td := newOfflineDash(t, false)
	ctx := context.Background()
	b := td.signedIn(td.owner)
	p := b.get("/team")
	for _, want := range []string{`action="/team/hours"`, `id="hours-tz"`, `aria-labelledby="hours-d-1 hours-c-open"`, `id="hours-nomail"`, "PARLEY_SMTP_URL"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("team page lacks %q", want)
		}
	}

	if p := b.post("/team/hours", hoursValues("Europe/Bucharest", "09:00", "17:30")); p.status != http.StatusSeeOther || p.location != "/team?flash=hours.saved" {
		t.Fatalf("valid hours: %d %s %s", p.status, p.location, p.body)
	}
	h, err := td.d.Offline.Hours(ctx, td.owner.AccountID)
	if err != nil || !h.Enabled || h.TimeZone != "Europe/Bucharest" || len(h.Days) != 5 || h.Days[0] != (hours.Range{Day: 1, Open: "09:00", Close: "17:30"}) {
		t.Fatalf("stored hours = %+v, %v", h, err)
	}
	p = b.get("/team?flash=hours.saved")
	if !strings.Contains(p.body, "Business hours saved.") || !strings.Contains(p.body, `name="open_1" id="hours-open-1" value="09:00"`) ||
		!strings.Contains(p.body, `name="closed_0" value="1" id="hours-closed-0" aria-labelledby="hours-d-0 hours-c-closed" checked`) {
		t.Fatalf("team page after saving does not show the hours:\n%s", p.body)
	}

	// Overnight: 22:00–06:00 is kept as given; Tuesday 03:00 is open (Monday's range).
	if p := b.post("/team/hours", hoursValues("Europe/Bucharest", "22:00", "06:00")); p.status != http.StatusSeeOther {
		t.Fatalf("overnight hours: %d %s", p.status, p.body)
	}
	h, _ = td.d.Offline.Hours(ctx, td.owner.AccountID)
	loc, _ := time.LoadLocation("Europe/Bucharest")
	if len(h.Days) != 5 || h.Days[0].Close != "06:00" || !h.Open(time.Date(2026, 11, 24, 3, 0, 0, 0, loc)) || h.Open(time.Date(2026, 11, 24, 12, 0, 0, 0, loc)) {
		t.Fatalf("overnight hours = %+v", h)
	}

	// An unknown zone: 400, translated, the posted values shown again, nothing stored.
	ro := td.signedIn(td.owner)
	ro.post("/language", url.Values{"lang": {"ro"}, "back": {"/team"}})
	p = ro.post("/team/hours", hoursValues("Mars/Olympus", "08:00", "16:00"))
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Fusul orar nu este un nume de fus orar IANA cunoscut") ||
		!strings.Contains(p.body, `value="Mars/Olympus"`) || !strings.Contains(p.body, `name="open_1" id="hours-open-1" value="08:00"`) {
		t.Fatalf("bad zone: %d\n%s", p.status, p.body)
	}
	if h2, _ := td.d.Offline.Hours(ctx, td.owner.AccountID); h2.String() != h.String() {
		t.Fatalf("a refused form changed the hours: %+v", h2)
	}
	// A bad time.
	p = b.post("/team/hours", hoursValues("UTC", "25:00", "06:00"))
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Each open day needs an opening time") {
		t.Fatalf("bad time: %d\n%s", p.status, p.body)
	}
	p = b.post("/team/hours", hoursValues("UTC", "", ""))
	if p.status != http.StatusBadRequest {
		t.Fatalf("open day without times: %d", p.status)
	}

	// An operator: no team page, no saving.
	op := td.newUser("op@example.com", "Oleg", td.owner.AccountID)
	ob := td.signedIn(op)
	if p := ob.get("/team"); p.status != http.StatusForbidden && p.status != http.StatusNotFound {
		t.Fatalf("operator GET /team: %d", p.status)
	}
	if p := ob.post("/team/hours", hoursValues("UTC", "00:00", "24:00")); p.status != http.StatusForbidden && p.status != http.StatusNotFound {
		t.Fatalf("operator POST /team/hours: %d", p.status)
	}
	if h2, _ := td.d.Offline.Hours(ctx, td.owner.AccountID); h2.String() != h.String() {
		t.Fatalf("an operator changed the hours: %+v", h2)
	}
}

// Every user sets their own wait alert on the account page: saved,
// refused out of range with a translated message, and the page says when
// e-mail is not configured (and not when it is).
func TestWaitAlertForm(t *testing.T) {
	t.Parallel()
	td := newOfflineDash(t, false)
	ctx := context.Background()
	op := td.newUser("op@example.com", "Oleg", td.owner.AccountID)
	b := td.signedIn(op)
	p := b.get("/account/password")
	for _, want := range []string{`action="/account/wait-alert"`, `<label for="wait-alert">E-mail me when a conversation waits for N minutes (0 = off)</label>`, `value="0"`, `id="waitalert-nomail"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("account page lacks %q", want)
		}
	}
	if p := b.post("/account/wait-alert", url.Values{"wait_alert_minutes": {"15"}}); p.status != http.StatusSeeOther || p.location != "/account/password?flash=waitalert.saved" {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	if n, err := td.d.Offline.WaitAlert(ctx, op.AccountID, op.ID); n != 15 || err != nil {
		t.Fatalf("stored = %d, %v", n, err)
	}
	if n, _ := td.d.Offline.WaitAlert(ctx, td.owner.AccountID, td.owner.ID); n != 0 {
		t.Fatalf("the owner's alert changed: %d", n)
	}
	if p := b.get("/account/password"); !strings.Contains(p.body, `value="15"`) {
		t.Fatal("the page does not show the stored minutes")
	}
	ru := td.signedIn(op)
	ru.post("/language", url.Values{"lang": {"ru"}, "back": {"/"}})
	for _, bad := range []string{"-1", "1441", "ten", "1.5"} {
		p := ru.post("/account/wait-alert", url.Values{"wait_alert_minutes": {bad}})
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Введите 0 (выключено) или целое число минут до 1440.") || !strings.Contains(p.body, `value="`+bad+`"`) {
			t.Errorf("%q: %d", bad, p.status)
		}
	}
	if n, _ := td.d.Offline.WaitAlert(ctx, op.AccountID, op.ID); n != 15 {
		t.Fatalf("a refused value was stored: %d", n)
	}
	if p := b.post("/account/wait-alert", url.Values{"wait_alert_minutes": {"0"}}); p.status != http.StatusSeeOther {
		t.Fatalf("off: %d", p.status)
	}

	on := newOfflineDash(t, true)
	ob := on.signedIn(on.owner)
	if p := ob.get("/account/password"); strings.Contains(p.body, "waitalert-nomail") || !strings.Contains(p.body, `action="/account/wait-alert"`) {
		t.Fatal("e-mail configured: the account page still says it is off, or lacks the form")
	}
	if p := ob.get("/team"); strings.Contains(p.body, "hours-nomail") || !strings.Contains(p.body, `action="/team/hours"`) {
		t.Fatal("e-mail configured: the team page still says it is off, or lacks the form")
	}
}
