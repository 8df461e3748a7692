package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"parley/internal/domain"
	"parley/internal/hours"
	"parley/internal/offline"
)

// The "nobody left waiting" settings (issue 19): the account's business
// hours on the team page (owners) and each user's wait alert on their
// account page. The rules are offline.Service's, as for the management API.

// hoursDay is one weekday's row of the business hours form: one range a
// day (the API can store more; saving the form keeps one a day).
type hoursDay struct {
	Day         int    // 0 Sunday … 6 Saturday
	Key         string // the i18n key of the day's name
	Closed      bool
	Open, Close string
	More        bool // the stored hours have more than one range this day
}

// hoursForm is the team page's business hours section.
type hoursForm struct {
	Enabled  bool
	TimeZone string
	Days     []hoursDay // Monday first
	Mail     bool       // e-mail configured (PARLEY_SMTP_URL)
}

var dayKeys = [7]string{"day.sun", "day.mon", "day.tue", "day.wed", "day.thu", "day.fri", "day.sat"}

// newHoursForm shows stored hours: a day with no range is closed.
func newHoursForm(h hours.Hours, mail bool) *hoursForm {
	f := &hoursForm{Enabled: h.Enabled, TimeZone: h.TimeZone, Mail: mail}
	for i := range 7 {
		day := (i + 1) % 7
		row := hoursDay{Day: day, Key: dayKeys[day], Closed: true, Open: "09:00", Close: "17:00"}
		for _, r := range h.Days {
			if r.Day != day {
				continue
			}
			if !row.Closed {
				row.More = true
				continue
			}
			row.Closed, row.Open, row.Close = false, r.Open, r.Close
		}
		f.Days = append(f.Days, row)
	}
	return f
}

// readHoursForm reads the posted form back into a form (to show again
// after an error) and into hours.
func readHoursForm(r *http.Request, mail bool) (*hoursForm, hours.Hours) {
	f := &hoursForm{Enabled: r.PostFormValue("enabled") == "1", TimeZone: strings.TrimSpace(r.PostFormValue("time_zone")), Mail: mail}
	h := hours.Hours{Enabled: f.Enabled, TimeZone: f.TimeZone, Days: []hours.Range{}}
	for i := range 7 {
		day := (i + 1) % 7
		n := strconv.Itoa(day)
		row := hoursDay{Day: day, Key: dayKeys[day], Closed: r.PostFormValue("closed_"+n) == "1",
			Open: strings.TrimSpace(r.PostFormValue("open_" + n)), Close: strings.TrimSpace(r.PostFormValue("close_" + n))}
		f.Days = append(f.Days, row)
		if !row.Closed {
			h.Days = append(h.Days, hours.Range{Day: day, Open: row.Open, Close: row.Close})
		}
	}
	return f, h
}

// SetHours saves the account's business hours (owners; the team page).
// A close time before the open time runs past midnight.
func (d *Dashboard) SetHours(w http.ResponseWriter, r *http.Request) {
	if d.Offline == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	if status, key := readForm(w, r, maxForm); key != "" {
		d.showTeam(w, r, status, teamData{}, key)
		return
	}
	form, h := readHoursForm(r, d.Offline.MailEnabled())
	if (hours.Hours{TimeZone: h.TimeZone}).Validate() != nil {
		d.showTeam(w, r, http.StatusBadRequest, teamData{Hours: form}, "hours.badzone")
		return
	}
	_, err := d.Offline.SetHours(r.Context(), user(r).AccountID, h)
	var inv *domain.InvalidError
	if errors.As(err, &inv) {
		d.showTeam(w, r, http.StatusBadRequest, teamData{Hours: form}, "hours.badtime")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/team?flash=hours.saved", http.StatusSeeOther)
}

// accountData is the account page's wait alert section (nil without the
// offline service).
type accountData struct {
	WaitAlert *waitAlertForm
}

type waitAlertForm struct {
	Minutes string
	Mail    bool // e-mail configured (PARLEY_SMTP_URL)
	Max     int
}

// accountPage is what the account page shows; minutes is the form's value
// after an error ("" reads the stored one).
func (d *Dashboard) accountPage(r *http.Request, minutes string) (accountData, error) {
	if d.Offline == nil {
		return accountData{}, nil
	}
	if minutes == "" {
		u := user(r)
		n, err := d.Offline.WaitAlert(r.Context(), u.AccountID, u.ID)
		if err != nil {
			return accountData{}, err
		}
		minutes = strconv.Itoa(n)
	}
	return accountData{WaitAlert: &waitAlertForm{Minutes: minutes, Mail: d.Offline.MailEnabled(), Max: offline.MaxWaitAlertMinutes}}, nil
}

// SetWaitAlert saves the signed-in user's wait alert: an e-mail when a
// conversation waits for a person for that many minutes (0: off).
func (d *Dashboard) SetWaitAlert(w http.ResponseWriter, r *http.Request) {
	if d.Offline == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	u := user(r)
	raw := strings.TrimSpace(r.PostFormValue("wait_alert_minutes"))
	n, err := strconv.Atoi(raw)
	if err == nil {
		err = d.Offline.SetWaitAlert(r.Context(), u.AccountID, u.ID, n)
	}
	var inv *domain.InvalidError
	if err != nil && (errors.As(err, &inv) || raw != strconv.Itoa(n)) {
		data, derr := d.accountPage(r, raw)
		if derr != nil {
			d.fail(w, r, derr)
			return
		}
		d.render(w, r, http.StatusBadRequest, "password", view{Title: "password.title", Error: "waitalert.invalid", ErrorArgs: []any{offline.MaxWaitAlertMinutes}, Data: data})
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/account/password?flash=waitalert.saved", http.StatusSeeOther)
}
