package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/internal/canned"
)

// The operator desk in two browser contexts: a visitor in the widget and
// the owner in the dashboard. A canned reply expands from "/ref" with
// Tab, its variables filled on the server, and reaches the widget when
// sent; a private note shows in the dashboard, labelled, and never in the
// widget. Screenshots of the conversation with its note in en, ro, ru.
func TestDeskCannedAndNotes(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner, _ := dashboardUsers(t, s)
	h := newHost(t, s)
	ctx := context.Background()
	svc := &canned.Service{Store: s.store}
	for _, in := range []canned.Input{
		{Shortcut: "refund", Language: "any", Text: "Hi {{visitor.name|there}}, {{operator.name}} from {{agent.name}} here: your refund is on its way."},
		{Shortcut: "refund", Language: "ru", Text: "Здравствуйте, {{visitor.name|клиент}}! Возврат уже в пути."},
		{Shortcut: "hours", Language: "any", Text: "We are open 9 to 5."},
	} {
		if _, err := svc.Create(ctx, owner.AccountID, in); err != nil {
			t.Fatal(err)
		}
	}

	// The visitor asks in the widget.
	w := newPage(t, 90*time.Second)
	openChat(w, h.url(pageOptions{}))
	send(w, "I want my money back")
	w.wait("the answer", W+`.querySelectorAll('.m.a').length >= 2`)
	conv := eval[string](w, `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`')).c`)

	// The owner opens it and takes it over.
	d := newPage(t, 90*time.Second)
	d.do(chromedp.EmulateViewport(1280, 900))
	signIn(d, s.srv.URL, "owner@example.com")
	d.navigate(s.srv.URL + "/conversations/" + conv)
	settle(d, "the conversation", `!!document.querySelector('.transcript')`)
	d.click(`document.querySelector('form[action$="/takeover"] button')`)
	settle(d, "the takeover", `!!document.querySelector('form[action$="/release"]') && !!document.querySelector('#reply-text')`)

	// "/ref" offers refund, not hours; Tab expands it in place.
	d.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#reply-text')`)))
	d.keys("/ref")
	d.wait("the suggestions", `!document.querySelector('#canned-list').hidden`)
	shown := eval[[]string](d, `[...document.querySelectorAll('#canned-list [role=option]')].filter(o => !o.hidden).map(o => o.dataset.shortcut)`)
	if len(shown) != 1 || shown[0] != "refund" {
		t.Fatalf("suggested %v, want [refund]", shown)
	}
	// The reply box stays a (multi-line) text box that completes from
	// the list, with the suggestion as its active descendant.
	if eval[string](d, `document.querySelector('#reply-text').getAttribute('aria-controls')`) != "canned-list" ||
		eval[string](d, `document.querySelector('#reply-text').getAttribute('aria-activedescendant')`) != "canned-refund" {
		t.Fatal("the reply box does not announce the suggestion")
	}
	if names := axNames(d, "textbox"); !slices.Contains(names, "Reply") {
		t.Fatalf("the reply box is not a text box named Reply: textboxes %q", names)
	}
	checkAxe(t, d, "conversation-canned-list-en")
	d.keys(kb.Tab)
	want := "Hi there, Olga Owner from Northwind here: your refund is on its way."
	got := eval[string](d, `document.querySelector('#reply-text').value`)
	if !strings.HasPrefix(got, "Hi there, ") || !strings.HasSuffix(got, " here: your refund is on its way.") || strings.Contains(got, "{{") {
		t.Fatalf("expanded to %q, want like %q", got, want)
	}
	if !eval[bool](d, `document.activeElement.id == 'reply-text' && document.querySelector('#canned-list').hidden`) {
		t.Fatal("after Tab the focus left the reply box or the list stayed open")
	}
	d.enter() // the list is closed: Enter sends
	settle(d, "the reply in the transcript", `[...document.querySelectorAll('.msg-operator .text')].some(e => e.textContent.includes('refund is on its way'))`)
	w.wait("the canned reply in the widget", W+`.querySelector('.m.o')?.textContent.includes('refund is on its way')`)

	// Oleg, an operator, has the conversation open too, in a browser of
	// his own: the owner's note shows on his page live, without a reload
	// (the note's signal goes to the conversation's team topic).
	o := newPage(t, 90*time.Second)
	signIn(o, s.srv.URL, "oleg@example.com")
	o.navigate(s.srv.URL + "/conversations/" + conv)
	settle(o, "Oleg's page", `[...document.querySelectorAll('.msg-operator .text')].some(e => e.textContent.includes('refund is on its way'))`)
	eval[bool](o, `(window.sameLoad = true)`)

	// A private note: in the dashboard, labelled; never in the widget.
	const note = "Refund approved by finance — card ends 4242"
	d.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#note-text')`)))
	d.keys(note)
	d.click(`document.querySelector('#note button[type=submit]')`)
	settle(d, "the note", `[...document.querySelectorAll('.note .text')].some(e => e.textContent == '`+note+`')`)
	o.wait("the note on Oleg's open page", `window.sameLoad && [...document.querySelectorAll('.note .text')].some(e => e.textContent == '`+note+`')`)
	if l := eval[string](d, `document.querySelector('.note .note-label').textContent`); l != "Private note" {
		t.Fatalf("the note's label is %q", l)
	}
	if bg := eval[string](d, `getComputedStyle(document.querySelector('.note')).backgroundColor`); bg == eval[string](d, `getComputedStyle(document.querySelector('.msg-operator')).backgroundColor`) {
		t.Fatalf("the note looks like a reply (%s)", bg)
	}
	// The operator says one more thing after the note; once the widget
	// has it, it has everything it will ever get, and no note.
	d.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#reply-text')`)))
	d.keys("Anything else?")
	d.enter()
	w.wait("the operator's second message", W+`.querySelectorAll('.m.o').length == 2`)
	if txt := eval[string](w, W+`.textContent + localStorage.getItem('parley:`+s.keys["en"]+`')`); strings.Contains(txt, "4242") || strings.Contains(txt, "finance") {
		t.Fatalf("the widget shows the note: %s", txt)
	}
	w.navigate(h.url(pageOptions{}))
	w.wait("the widget again", W+`?.querySelector('.la')`)
	if txt := eval[string](w, `(`+W+`?.textContent || '') + localStorage.getItem('parley:`+s.keys["en"]+`')`); strings.Contains(txt, "4242") {
		t.Fatalf("the reloaded widget shows the note: %s", txt)
	}
	if n, err := s.store.Notes(ctx, owner.AccountID, conv); err != nil || len(n) != 1 {
		t.Fatalf("notes stored: %v %v", n, err)
	}

	// Screenshots of the conversation with its note.
	dir := t.ArtifactDir()
	update := os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1"
	for _, lang := range []string{"en", "ro", "ru"} {
		if lang != "en" {
			eval[bool](d, `(document.querySelector('#lang-switch').value = '`+lang+`', document.querySelector('#lang-switch').form.submit(), true)`)
			settle(d, "the page in "+lang, `document.documentElement.lang == '`+lang+`' && !!document.querySelector('.note')`)
		}
		// From the top: the list is sticky, and a capture of the whole
		// page taken while scrolled shows it where the viewport was.
		eval[bool](d, `(window.scrollTo(0, 0), true)`)
		file := "dashboard-conversation-note-" + lang + ".png"
		checkAxe(t, d, "conversation-note-"+lang)
		b := recompress(t, capture(d, file, true, dashboardProbes))
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if update {
			if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if l := eval[string](d, `document.querySelector('.note .note-label').textContent`); l != "Внутренняя заметка" {
		t.Fatalf("the Russian label is %q", l)
	}
	d.checkConsole()
	o.checkConsole()
	w.checkConsole()
}
