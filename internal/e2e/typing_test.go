package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Typing indicators (issue 19) in two browser contexts: the owner types
// in the dashboard's reply box and the visitor's widget says "<name> is
// typing…" in a status region; the visitor types and the dashboard's
// conversation page says "Visitor is typing…".
func TestTypingIndicators(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner, _ := dashboardUsers(t, s)
	h := newHost(t, s)

	w := newPage(t, 90*time.Second)
	openChat(w, h.url(pageOptions{}))
	send(w, "Is anyone there?")
	w.wait("the answer", W+`.querySelectorAll('.m.a').length >= 2`)
	conv := eval[string](w, `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`')).c`)

	d := newPage(t, 90*time.Second)
	signIn(d, s.srv.URL, "owner@example.com")
	d.navigate(s.srv.URL + "/conversations/" + conv)
	settle(d, "the conversation", `!!document.querySelector('.transcript')`)
	d.click(`document.querySelector('form[action$="/takeover"] button')`)
	settle(d, "the takeover", `!!document.querySelector('form[action$="/release"]') && !!document.querySelector('#reply-text')`)
	// The widget hears of the takeover before the visitor types.
	w.wait("the takeover notice", W+`.querySelectorAll('.m.s').length > 0`)
	if got := eval[string](w, W+`.querySelector('.ty').textContent`); got != "" {
		t.Fatalf("typing shown before anyone types: %q", got)
	}

	d.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#reply-text')`)))
	d.keys("Hello, I am")
	want := owner.Name + " is typing…"
	w.wait("the operator's typing", W+`.querySelector('.ty').textContent == `+jsString(want))
	if role := eval[string](w, W+`.querySelector('.ty').getAttribute('role')`); role != "status" {
		t.Fatalf("the typing line's role is %q", role)
	}

	w.do(chromedp.Focus(chromedp.JSPath(W + `.querySelector('textarea')`)))
	w.keys("I have a question")
	d.wait("the visitor's typing", `document.querySelector('[data-typing]')?.textContent == 'Visitor is typing…'`)
	w.checkConsole()
	d.checkConsole()
}
