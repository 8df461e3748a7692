package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/internal/useragent"
)

const hostile = `<img src=x onerror=alert(1)><b>bold</b>`

// TestConversation is a visitor's whole session on a hostile host page:
// open with the keyboard, ask, get an answer and quick replies, an operator
// takes over and answers, everyone's HTML stays text, a reload continues the
// conversation, and the page is left as it was.
func TestConversation(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)
	p := newPage(t, 90*time.Second)

	// The page as it is without the widget, to compare with at the end.
	p.navigate(h.url(pageOptions{hostile: true, noWidget: true}))
	before := eval[string](p, pageSnapshot)

	p.navigate(h.url(pageOptions{hostile: true}))
	p.wait("the launcher", W+`?.querySelector('.la')`)
	if got := accessibleNames(p, "button"); !slices.Contains(got, "Open chat") {
		t.Errorf("buttons %q: no launcher named Open chat", got)
	}

	// A visitor records events through the JS API for site owners.
	eval[bool](p, `(window.events = [], Parley.on('message', m => events.push(m)), true)`)

	// Keyboard only: Tab to the launcher (the last thing on the page), Enter.
	for i := 0; i < 20 && !eval[bool](p, W+`.activeElement?.className == 'la'`); i++ {
		p.keys(kb.Tab)
	}
	p.keys(kb.Enter)
	p.wait("the panel with the focus in the text box", W+`.activeElement?.tagName == 'TEXTAREA'`)
	p.wait("the greeting", W+`.querySelector('.m.a')?.textContent.includes('Ask me about orders')`)
	checkDialog(t, p, "Northwind Help")

	// Shift+Enter is a new line, Enter sends.
	p.keys("What are your")
	p.keys(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift))
	p.keys("opening hours?")
	if v := eval[string](p, W+`.querySelector('textarea').value`); v != "What are your\nopening hours?" {
		t.Fatalf("text box holds %q after Shift+Enter", v)
	}
	p.enter()
	p.wait("the AI's answer", W+`.querySelectorAll('.m.a')[1]?.textContent.includes('We are open from 9 to 17')`)
	if v := eval[string](p, W+`.querySelector('textarea').value`); v != "" {
		t.Errorf("text box holds %q after sending", v)
	}

	// Something the agent does not know: an answer with a quick reply.
	p.keys("Do you sell submarines?")
	p.enter()
	p.wait("the quick reply", W+`.querySelector('.q button')?.textContent == 'Talk to a human'`)

	// Visitor text with markup is sent and shown as text.
	p.keys(hostile)
	p.enter()
	p.wait("the visitor's HTML as text", `[...`+W+`.querySelectorAll('.m.u')].some(e => e.textContent.endsWith(`+jsString(hostile)+`))`)
	p.wait("the answer to it", W+`.querySelectorAll('.m.a').length == 4`)

	// The operator takes over and writes, with markup and a link; the widget
	// is long-polling, so the message arrives without the visitor writing.
	conv := eval[string](p, `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`')).c`)
	// The widget told the desk what the server cannot see (issue 19):
	// the browser's time zone and language at init, the page with each
	// chat; the User-Agent is the request's.
	if vc, err := s.store.VisitorContext(context.Background(), conv); err != nil || vc.TimeZone == "" || vc.Language == "" ||
		useragent.Parse(vc.UserAgent).Browser != "Chrome" || len(vc.Pages) == 0 || !strings.HasPrefix(vc.Pages[0].URL, "http") || strings.Contains(vc.Pages[0].URL, "?") {
		t.Errorf("the visitor's details as stored: %+v, %v", vc, err)
	}
	opText := hostile + " Hi, I am Ana. See https://northwind.example/help."
	s.operatorSays(conv, "Ana", opText)
	p.wait("the operator's message", W+`.querySelector('.m.o')?.textContent.includes('Hi, I am Ana')`)
	if name := eval[string](p, W+`.querySelector('.m.o .w').textContent`); name != "Ana" {
		t.Errorf("operator shown as %q", name)
	}
	if txt := eval[string](p, W+`.querySelector('.m.o').textContent`); txt != "Ana"+opText {
		t.Errorf("operator message shown as %q", txt)
	}
	p.wait("the operator note", `[...`+W+`.querySelectorAll('.m.s')].some(e => e.textContent == 'An operator will answer you here.')`)
	link := eval[map[string]string](p, `(a => ({href: a.href, rel: a.rel, target: a.target, text: a.textContent}))(`+W+`.querySelector('.m.o a'))`)
	if link["href"] != "https://northwind.example/help" || link["rel"] != "noopener noreferrer nofollow" || link["target"] != "_blank" {
		t.Errorf("link %v", link)
	}

	// While the operator has it, the visitor's message gets no AI answer.
	p.keys("Thank you, Ana")
	p.enter()
	p.wait("the message taken", `!`+W+`.querySelector('.m.f') && [...`+W+`.querySelectorAll('.m.u')].pop()?.textContent.endsWith('Thank you, Ana')`)
	time.Sleep(300 * time.Millisecond) // an AI answer, if any, would show now
	if n := eval[int](p, W+`.querySelectorAll('.m.a').length`); n != 4 {
		t.Errorf("%d AI messages after the takeover, want 4", n)
	}
	if st := eval[string](p, W+`.querySelector('.st').textContent`); st != "" {
		t.Errorf("status %q after a handoff answer", st)
	}

	checkNoMarkup(t, p)
	events := eval[[]map[string]any](p, `events`)
	if !slices.ContainsFunc(events, func(e map[string]any) bool { return e["role"] == "operator" && e["operator_name"] == "Ana" }) ||
		!slices.ContainsFunc(events, func(e map[string]any) bool { return e["role"] == "visitor" && e["text"] == "Thank you, Ana" }) {
		t.Errorf("Parley.on('message') saw %v", events)
	}
	stored := s.messages(conv)
	if len(stored) != 8 || stored[6] != "operator: "+opText || stored[7] != "visitor: Thank you, Ana" {
		t.Errorf("stored conversation:\n%s", strings.Join(stored, "\n"))
	}

	// A reload continues the same conversation, open as it was, and does
	// not take the focus from the page.
	transcript := eval[string](p, W+`.querySelector('[role=log]').textContent`)
	p.navigate(h.url(pageOptions{hostile: true}))
	p.wait("the panel after the reload", W+`.querySelector('.p') && !`+W+`.querySelector('.p').hidden`)
	if got := eval[string](p, W+`.querySelector('[role=log]').textContent`); got != transcript {
		t.Errorf("transcript after reload:\n%s\nwant:\n%s", got, transcript)
	}
	if eval[string](p, `document.activeElement.tagName`) != "BODY" {
		t.Error("the restored chat took the focus")
	}
	if c := eval[string](p, `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`')).c`); c != conv {
		t.Errorf("conversation %s after reload, want %s", c, conv)
	}

	// Escape closes and gives the focus back to the launcher.
	p.do(chromedp.Focus(chromedp.JSPath(W + `.querySelector('textarea')`)))
	p.keys(kb.Escape)
	p.wait("the closed panel", W+`.querySelector('.p').hidden && !`+W+`.querySelector('.la').hidden`)
	if eval[string](p, W+`.activeElement?.className`) != "la" {
		t.Error("the focus is not on the launcher after Escape")
	}

	checkIsolation(t, p, before)
	p.checkConsole()
}

// checkDialog checks the open panel's accessible structure, as the
// accessibility tree (what a screen reader gets) has it.
func checkDialog(t *testing.T, p *page, chatbot string) {
	t.Helper()
	for role, name := range map[string]string{"dialog": chatbot, "textbox": "Message", "log": ""} {
		if !slices.Contains(accessibleNames(p, role), name) {
			t.Errorf("no %s named %q; %ss: %q", role, name, role, accessibleNames(p, role))
		}
	}
	buttons := accessibleNames(p, "button")
	for _, name := range []string{"Close chat", "Send"} {
		if !slices.Contains(buttons, name) {
			t.Errorf("no button named %q; buttons %q", name, buttons)
		}
	}
	if live := eval[string](p, W+`.querySelector('[role=log]').getAttribute('aria-live')`); live != "polite" {
		t.Errorf("log aria-live = %q", live)
	}
}

// checkNoMarkup checks that nothing anyone typed became an element.
func checkNoMarkup(t *testing.T, p *page) {
	t.Helper()
	if n := eval[int](p, W+`.querySelectorAll('img, b, script, iframe').length`); n != 0 {
		t.Errorf("%d elements made from message text in the widget", n)
	}
	if n := eval[int](p, `document.querySelectorAll('img, b').length`); n != 0 {
		t.Errorf("%d elements made from message text in the page", n)
	}
}

// pageSnapshot is the host page's DOM without the widget's host element,
// and the computed styles of its elements: what the widget must not touch.
const pageSnapshot = `(() => {
  const body = document.body.cloneNode(true);
  body.querySelector('#parley-widget')?.remove();
  body.querySelectorAll('script').forEach(s => s.remove());
  const style = sel => { const c = getComputedStyle(document.querySelector(sel)); return [c.fontFamily, c.color, c.backgroundColor, c.padding, c.margin, c.display].join(';') };
  return JSON.stringify({
    html: document.documentElement.getAttributeNames().map(a => a + '=' + document.documentElement.getAttribute(a)),
    head: document.head.innerHTML,
    body: body.outerHTML,
    sheets: document.styleSheets.length,
    adopted: document.adoptedStyleSheets.length,
    styles: ['body', 'h1', '.cta', '.card', '.top a'].map(style),
  });
})()`

// checkIsolation compares the host page with its state before the widget,
// and checks that the page's CSS did not reach the widget.
func checkIsolation(t *testing.T, p *page, before string) {
	t.Helper()
	if after := eval[string](p, pageSnapshot); after != before {
		t.Errorf("the host page changed:\nbefore %s\nafter  %s", before, after)
	}
	if n := eval[int](p, `document.querySelectorAll('#parley-widget').length`); n != 1 {
		t.Errorf("%d widget host elements", n)
	}
	host := eval[map[string]string](p, `(c => ({position: c.position, bottom: c.bottom, display: c.display, opacity: c.opacity, transform: c.transform}))(getComputedStyle(document.querySelector('#parley-widget')))`)
	want := map[string]string{"position": "fixed", "bottom": "20px", "display": "block", "opacity": "1", "transform": "none"}
	for k, v := range want {
		if host[k] != v {
			t.Errorf("host element %s = %q, want %q (the page's CSS won)", k, host[k], v)
		}
	}
	la := eval[map[string]string](p, `(c => ({font: c.fontFamily, color: c.color, bg: c.backgroundColor, padding: c.paddingTop, spacing: c.letterSpacing}))(getComputedStyle(`+W+`.querySelector('.la')))`)
	if !strings.HasPrefix(la["font"], "system-ui") || la["color"] == "rgb(255, 0, 0)" ||
		la["bg"] == "rgb(255, 255, 0)" || la["padding"] == "30px" || la["spacing"] == "3px" {
		t.Errorf("the page's CSS reached the launcher: %v", la)
	}
}

// accessibleNames lists the names of the nodes with role in the
// accessibility tree, shadow DOM included.
func accessibleNames(p *page, role string) []string {
	p.t.Helper()
	return axNames(p, role)
}

// jsString quotes s for JavaScript source.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
	return "`" + r.Replace(s) + "`"
}
