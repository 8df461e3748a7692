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

// TestOfflineEmailAndRating: with nobody online, a visitor who asks for a
// person is told so and leaves an address with the keyboard; they leave,
// the operator replies, and the reply with the transcript reaches a real
// SMTP server. The operator hands back; the visitor, back on the page,
// rates the conversation with the keyboard on the stars (a radio group
// with names). Screenshots of the form and the rating in en, ro and ru.
func TestOfflineEmailAndRating(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t, false)
	s := newStackWith(t, stackOptions{smtp: smtp})
	h := newHost(t, s)
	// Each form's button has a name of its own, so a screen reader's list
	// of buttons tells it from the message box's Send.
	want := map[string]struct{ ask, offline, leave, star, sendRating, rated string }{
		"en": {"Talk to a human", "Nobody can answer right now.", "Send address", "5 of 5 stars", "Send rating", "Thank you for your rating."},
		"ro": {"Vreau să vorbesc cu un om", "Nu vă poate răspunde nimeni acum.", "Trimite adresa", "5 din 5 stele", "Trimite evaluarea", "Vă mulțumim pentru evaluare."},
		"ru": {"Позовите оператора", "Сейчас никто не может ответить.", "Отправить адрес", "5 из 5 звёзд", "Отправить оценку", "Спасибо за оценку."},
	}
	for i, lang := range []string{"en", "ro", "ru"} {
		w := want[lang]
		p := newPage(t, 90*time.Second)
		p.do(chromedp.EmulateViewport(1280, 800))
		agent := lang
		if lang == "ro" {
			agent = "en" // the English agent on a page in Romanian
		}
		openChat(p, h.url(pageOptions{agent: agent, attrs: map[string]string{"lang": lang}}))
		send(p, w.ask)
		p.wait("the offline form", W+`?.querySelector('form.of input[type=email]')`)
		if got := eval[string](p, W+`.querySelector('form.of p').textContent`); !strings.HasPrefix(got, w.offline) {
			t.Fatalf("%s: the offline text is %q", lang, got)
		}
		// The address field has its name and takes the focus.
		if names := axNames(p, "textbox"); len(names) < 2 {
			t.Fatalf("%s: textboxes %q", lang, names)
		}
		if names := axNames(p, "button"); !slices.Contains(names, w.leave) {
			t.Fatalf("%s: buttons %q, want one named %q", lang, names, w.leave)
		}
		if got := eval[string](p, W+`.activeElement?.type`); got != "email" {
			t.Fatalf("%s: the focus is on %q, want the address field", lang, got)
		}
		p.keys("not-an-address")
		p.keys(kb.Tab)
		p.keys("Ana")
		// The browser's own check stops an invalid type=email: clear it and
		// type a good one.
		eval[bool](p, `(e => (e.value = '', e.focus(), true))(`+W+`.querySelector('form.of input[type=email]'))`)
		addr := "ana-" + lang + "@example.org"
		p.keys(addr)
		checkAxeWidget(t, p, "widget-offline-form-"+lang)
		offlineShot(t, p, "widget-offline-form-"+lang+".png")
		p.keys(kb.Enter)
		p.wait("the thanks", W+`.querySelectorAll('.m.s').length > 0 && !`+W+`.querySelector('form.of')`)
		conv := eval[string](p, `JSON.parse(Object.entries(localStorage).find(([k]) => k.startsWith('parley'))[1]).c`)
		// The visitor closes the chat and goes away; the operator answers.
		p.keys(kb.Escape)
		p.wait("the closed panel", W+`.querySelector('.p').hidden`)
		p.navigate("about:blank")
		s.operatorSays(conv, "Ion", "Hello from Ion: your parcel ships Monday.")
		msgs := smtp.Wait(t, i+1, 20*time.Second)
		m := msgs[i]
		if !slices.Contains(m.To, addr) || !strings.Contains(m.Body, w.ask) || !strings.Contains(m.Body, "Hello from Ion: your parcel ships Monday.") || !strings.Contains(m.Body, "Ion (") {
			t.Fatalf("%s: the mail: %+v", lang, m)
		}
		// Handed back; the visitor returns and is asked for a rating.
		s.manage("POST", "/api/v1/conversations/"+conv+"/release", nil, 200)
		openChat(p, h.url(pageOptions{agent: agent, attrs: map[string]string{"lang": lang}}))
		p.wait("the rating", W+`?.querySelector('.rs [role=radio]')`)
		if names := axNames(p, "radio"); len(names) != 5 || names[4] != w.star {
			t.Fatalf("%s: the stars are named %q", lang, names)
		}
		if names := axNames(p, "button"); !slices.Contains(names, w.sendRating) {
			t.Fatalf("%s: buttons %q, want one named %q", lang, names, w.sendRating)
		}
		p.do(chromedp.Focus(chromedp.JSPath(W + `.querySelector('.rs [role=radio]')`)))
		for range 5 {
			p.keys(kb.ArrowRight)
		}
		if got := eval[string](p, W+`.activeElement?.getAttribute('aria-label')`); got != w.star {
			t.Fatalf("%s: focus on %q after five arrows", lang, got)
		}
		p.keys(kb.Tab)
		p.keys("Quick and kind")
		checkAxeWidget(t, p, "widget-rating-"+lang)
		offlineShot(t, p, "widget-rating-"+lang+".png")
		p.keys(kb.Enter)
		p.wait("the rating's thanks", `[...`+W+`.querySelectorAll('.m.s')].some(e => e.textContent == `+jsString(w.rated)+`)`)
		got := s.manage("GET", "/api/v1/conversations/"+conv+"/rating", nil, 200)
		if !strings.Contains(string(got), `"rating":5`) || !strings.Contains(string(got), "Quick and kind") {
			t.Fatalf("%s: rating %s", lang, got)
		}
		p.checkConsole()
	}
}

// offlineShot saves a screenshot of the page into the test's artifacts (and the
// docs with PARLEY_UPDATE_SCREENSHOTS=1).
func offlineShot(t *testing.T, p *page, file string) {
	t.Helper()
	b := recompress(t, capture(p, file, false, widgetProbes))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), file), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
