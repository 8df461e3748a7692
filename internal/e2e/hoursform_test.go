package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/internal/mail/mailtest"
)

// The team page's business hours form in Chromium, with the keyboard
// alone: the owner types a time zone, sets Monday to an overnight range
// and saves with Enter; the time inputs are named by day and column.
// A screenshot of the team page (hours-form-en.png in the artifacts).
func TestBusinessHoursFormKeyboard(t *testing.T) {
	t.Parallel()
	s := newStackWith(t, stackOptions{smtp: mailtest.Start(t, false)})
	dashboardUsers(t, s)
	p := newPage(t, 90*time.Second)
	p.do(chromedp.EmulateViewport(1280, 900))
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/team")
	settle(p, "the hours form", `!!document.querySelector('#hours-tz')`)
	if names := axNames(p, "checkbox"); !slices.Contains(names, "Monday Closed") || !slices.Contains(names, "Sunday Closed") {
		t.Fatalf("checkbox names %q", names)
	}
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#hours-enabled')`)))
	p.keys(" ")
	p.keys(kb.Tab)
	p.keys("Europe/Chisinau")
	// Monday's row: Closed (checked by default) off, then 22:00–06:00.
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#hours-closed-1')`)))
	p.keys(" ")
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#hours-open-1')`)))
	p.keys("1000P")
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#hours-close-1')`)))
	p.keys("0600A")
	if got := eval[string](p, `document.querySelector('#hours-open-1').value + '-' + document.querySelector('#hours-close-1').value`); got != "22:00-06:00" {
		t.Fatalf("the typed times read %q", got)
	}
	checkAxe(t, p, "team-hours-en")
	b := capture(p, "hours-form-en.png", true, dashboardProbes) // the whole team page
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "hours-form-en.png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#hours-tz')`)))
	p.keys(kb.Enter)
	settle(p, "the saved flash", `document.body.textContent.includes('Business hours saved.')`)
	got := string(s.manage("GET", "/api/v1/business-hours", nil, 200))
	if want := `{"enabled":true,"time_zone":"Europe/Chisinau","days":[{"day":1,"open":"22:00","close":"06:00"}]}`; strings.TrimSpace(got) != want {
		t.Fatalf("stored hours %s, want %s", got, want)
	}
	if !strings.Contains(eval[string](p, `document.querySelector('#hours-tz').value`), "Chisinau") {
		t.Fatal("the page does not show the saved zone")
	}
	p.checkConsole()
}
