package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The widget's texts the tests look for (web/widget/ui.js).
const (
	tRateLimited = "Too many messages. Sending again in a few seconds…"
	tFailed      = "Could not reach the chat. Check your connection and retry."
	tUnavailable = "Chat is unavailable right now. Please try again later."
	tTooLong     = "The message is longer than 2000 characters."
)

const (
	chatRoute = "POST /api/widget/chat"
	initRoute = "POST /api/widget/init"
)

// failedLoads are the console errors Chromium itself logs for a failed
// request; the fault tests cause them on purpose.
const failedLoads = "Failed to load resource"

// openChat loads a host page and opens the chat with a click, waiting for
// init to finish (the greeting shows).
func openChat(p *page, url string) {
	p.t.Helper()
	p.navigate(url)
	p.wait("the launcher", W+`?.querySelector('.la')`)
	p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.la')`)))
	p.wait("the greeting", W+`.querySelector('.m.a')`)
}

// send types a message into the text box and presses Enter.
func send(p *page, text string) {
	p.t.Helper()
	p.do(chromedp.Focus(chromedp.JSPath(W + `.querySelector('textarea')`)))
	p.keys(text)
	p.enter()
}

func status(p *page) string { return eval[string](p, W+`.querySelector('.st').textContent`) }

// retryButton reports whether the status line offers Retry.
func retryButton(p *page) bool { return eval[bool](p, `!!`+W+`.querySelector('.st button')`) }

func clickRetry(p *page) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.st button')`)))
}

// unsent is JavaScript for the messages the server has not taken yet.
const unsent = W + `.querySelectorAll('.m.u.f')`

func TestErrors(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)
	answered := W + `.querySelectorAll('.m.a').length == 2`

	t.Run("rate limit: waits Retry-After, says so, retries once", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		before := s.faults.count(chatRoute)
		s.faults.add(chatRoute, fault{status: 429, body: `{"error":"too many requests from this address; retry after a few seconds"}`, header: map[string]string{"Retry-After": "1"}})
		send(p, "What are your opening hours?")
		p.wait("the rate-limit notice", W+`.querySelector('.st').textContent == `+jsString(tRateLimited))
		p.wait("the answer after the wait", answered)
		if n := s.faults.count(chatRoute) - before; n != 2 {
			t.Errorf("%d chat requests, want 2", n)
		}
		if st := status(p); st != "" {
			t.Errorf("status %q after the retry worked", st)
		}
		p.checkConsole(failedLoads)
	})

	t.Run("rate limit twice: the message is kept with Retry", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		rl := fault{status: 429, body: `{"error":"too many requests"}`, header: map[string]string{"Retry-After": "1"}}
		s.faults.add(chatRoute, rl, rl)
		send(p, "What are your opening hours?")
		p.wait("the failure", W+`.querySelector('.st').textContent.startsWith(`+jsString(tFailed)+`)`)
		if !retryButton(p) || eval[int](p, unsent+`.length`) != 1 {
			t.Fatalf("no Retry, or the message is not kept:\n%s", p.dump())
		}
		clickRetry(p)
		p.wait("the answer after Retry", answered)
		if n := eval[int](p, unsent+`.length`); n != 0 {
			t.Errorf("%d messages still marked unsent", n)
		}
		p.checkConsole(failedLoads)
	})

	t.Run("502, 504, a lost answer and no connection: nothing is lost, Retry sends", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		s.faults.add(chatRoute,
			fault{status: 502, body: `{"error":"the AI agent backend is temporarily unavailable"}`},
			fault{status: 504, body: `{"error":"the request timed out; retry"}`},
			fault{cut: true})
		send(p, "What are your opening hours?")
		p.wait("the 502", W+`.querySelector('.st button')`)
		if eval[string](p, W+`.querySelector('textarea').value`) != "" || eval[string](p, unsent+`[0]?.textContent`) != "You: What are your opening hours?" {
			t.Fatalf("the failed message is not kept in the log:\n%s", p.dump())
		}
		// Even a reload keeps it, still unsent, with Retry on offer.
		p.navigate(h.url(pageOptions{}))
		p.wait("the kept message after a reload", unsent+`.length == 1 && !!`+W+`.querySelector('.st button')`)
		retry := func(what string) {
			t.Helper()
			n := s.faults.count(chatRoute)
			clickRetry(p)
			waitFor(t, what, func() bool { return s.faults.count(chatRoute) > n })
			p.wait(what+" reported", `!!`+W+`.querySelector('.st button')`)
			if eval[int](p, unsent+`.length`) != 1 {
				t.Fatalf("after %s the message is not kept:\n%s", what, p.dump())
			}
		}
		retry("the 504")
		retry("the answer cut short")
		s.faults.setDown(chatRoute, true)
		retry("the closed connection")
		s.faults.setDown(chatRoute, false)
		clickRetry(p)
		p.wait("the answer", answered)
		if n := eval[int](p, unsent+`.length`); n != 0 {
			t.Errorf("%d messages still marked unsent", n)
		}
		p.checkConsole(failedLoads)
	})

	t.Run("403 on chat: a new conversation, once", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		key := "parley:" + s.keys["en"]
		first := eval[string](p, `JSON.parse(localStorage.getItem('`+key+`')).c`)
		s.faults.add(chatRoute, fault{status: 403, body: `{"error":"conversation is invalid"}`})
		send(p, "What are your opening hours?")
		p.wait("the answer in a new conversation", answered)
		second := eval[string](p, `JSON.parse(localStorage.getItem('`+key+`')).c`)
		if second == first || second == "" {
			t.Errorf("conversation %q after the 403, was %q", second, first)
		}
		if got := s.messages(second); len(got) != 2 || got[0] != "visitor: What are your opening hours?" {
			t.Errorf("new conversation holds %q", got)
		}
		p.checkConsole(failedLoads)
	})

	t.Run("403 twice: unavailable, the message kept", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		s.faults.add(chatRoute, fault{status: 403, body: `{"error":"conversation is invalid"}`})
		s.faults.add(initRoute, fault{status: 403, body: `{"error":"widget key is invalid or inactive"}`})
		send(p, "Hello")
		p.wait("unavailable", W+`.querySelector('.st').textContent == `+jsString(tUnavailable))
		if retryButton(p) || eval[int](p, unsent+`.length`) != 1 {
			t.Errorf("Retry offered, or the message lost:\n%s", p.dump())
		}
		p.checkConsole(failedLoads)
	})

	t.Run("account blocked: polite, no retries", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		before := s.faults.count(initRoute)
		s.faults.add(initRoute, fault{status: 429, body: `{"error":"the monthly conversation allowance is used up","limit_reached":true,"reason":"quota"}`})
		p.navigate(h.url(pageOptions{}))
		p.wait("the launcher", W+`?.querySelector('.la')`)
		p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.la')`)))
		p.wait("unavailable", W+`?.querySelector('.st')?.textContent == `+jsString(tUnavailable))
		time.Sleep(1500 * time.Millisecond) // a retry, if any, would happen by now
		if n := s.faults.count(initRoute) - before; n != 1 || retryButton(p) {
			t.Errorf("%d init requests (want 1), Retry offered: %v", n, retryButton(p))
		}
		p.checkConsole(failedLoads)
	})

	t.Run("2000 characters: counted, enforced, nothing cut", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		before := s.faults.count(chatRoute)
		// Pasted, as a visitor would paste a long text: 2001 Cyrillic letters.
		eval[bool](p, `(b => (b.focus(), b.value = 'ж'.repeat(2001), b.dispatchEvent(new Event('input')), true))(`+W+`.querySelector('textarea'))`)
		state := func() string {
			return eval[string](p, `(r => [r.querySelector('.c').textContent, r.querySelector('textarea').getAttribute('aria-invalid'), r.querySelector('[type=submit]').disabled, r.querySelector('form .st').textContent].join('|'))(`+W+`)`)
		}
		if got, want := state(), "2001 / 2000|true|true|"+tTooLong; got != want {
			t.Errorf("over the limit: %q, want %q", got, want)
		}
		p.enter()
		time.Sleep(300 * time.Millisecond)
		if n := s.faults.count(chatRoute) - before; n != 0 || eval[int](p, `[...`+W+`.querySelector('textarea').value].length`) != 2001 {
			t.Fatalf("an over-long message was sent (%d requests) or cut", n)
		}
		// One letter deleted (Chromium ignores a Backspace sent over DevTools
		// in a text box, so the edit is made the way a paste is).
		eval[bool](p, `(b => (b.value = b.value.slice(1), b.dispatchEvent(new Event('input')), true))(`+W+`.querySelector('textarea'))`)
		if got, want := state(), "2000 / 2000|false|false|"; got != want {
			t.Errorf("at the limit: %q, want %q", got, want)
		}
		p.enter()
		p.wait("the answer", answered)
		conv := eval[string](p, `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`')).c`)
		if got := s.messages(conv); len(got) != 2 || got[0] != "visitor: "+strings.Repeat("ж", 2000) {
			t.Errorf("stored %d messages, the first %d bytes", len(got), len(got[0]))
		}
		p.checkConsole()
	})

	t.Run("release: the assistant answers again", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		openChat(p, h.url(pageOptions{}))
		conv := eval[string](p, `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`')).c`)
		s.operatorSays(conv, "", "Hello, this is the team.")
		p.wait("the operator, named by the account", W+`.querySelector('.m.o .w')?.textContent == 'Northwind'`)
		s.manage("POST", "/api/v1/conversations/"+conv+"/release", nil, 200)
		p.wait("the note", `[...`+W+`.querySelectorAll('.m.s')].some(e => e.textContent == 'The assistant is answering again.')`)
		send(p, "What are your opening hours?")
		p.wait("the AI's answer", W+`.querySelectorAll('.m.a').length == 2`)
		p.checkConsole()
	})
}

// TestOptions covers the script tag's attributes and the JS API.
func TestOptions(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)

	t.Run("data-lang ro, data-position left", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		p.navigate(h.url(pageOptions{attrs: map[string]string{"lang": "ro", "position": "left"}}))
		p.wait("the launcher", W+`?.querySelector('.la')`)
		if names := axNames(p, "button"); !slices.Contains(names, "Deschide chatul") {
			t.Errorf("launcher named %q", names)
		}
		if left := eval[string](p, `getComputedStyle(document.querySelector('#parley-widget')).left`); left != "20px" {
			t.Errorf("left = %q", left)
		}
		p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.la')`)))
		p.wait("the greeting", W+`.querySelector('.m.a')`)
		send(p, "Vindeți submarine?")
		// The agent does not know, and says so in the language the widget sent.
		p.wait("a Romanian answer", W+`.querySelectorAll('.m.a')[1]?.textContent.includes('Îmi pare rău')`)
		if got := axNames(p, "button"); !containsAll(got, "Închide chatul", "Trimite") {
			t.Errorf("buttons %q", got)
		}
		p.checkConsole()
	})

	t.Run("html lang ru", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		p.navigate(h.url(pageOptions{agent: "ru"}))
		p.wait("the launcher", W+`?.querySelector('.la')`)
		if names := axNames(p, "button"); !slices.Contains(names, "Открыть чат") {
			t.Errorf("launcher named %q", names)
		}
		p.checkConsole()
	})

	t.Run("data-open, until the visitor closes it", func(t *testing.T) {
		p := newPage(t, 60*time.Second)
		u := h.url(pageOptions{attrs: map[string]string{"open": ""}})
		p.navigate(u)
		p.wait("the open panel", W+`?.querySelector('.p') && !`+W+`.querySelector('.p').hidden`)
		if eval[string](p, `document.activeElement.tagName`) != "BODY" {
			t.Error("data-open took the focus")
		}
		eval[bool](p, `(Parley.close(), true)`)
		p.wait("the closed panel", W+`.querySelector('.p').hidden`)
		if eval[string](p, `document.activeElement.tagName`) != "BODY" {
			t.Error("Parley.close() took the focus")
		}
		p.navigate(u)
		p.wait("the launcher", W+`?.querySelector('.la')`)
		time.Sleep(300 * time.Millisecond)
		if eval[bool](p, `!!`+W+`.querySelector('.p')`) {
			t.Error("the chat opened again after the visitor closed it")
		}
		eval[bool](p, `(Parley.open(), true)`)
		p.wait("the panel opened by Parley.open()", W+`?.querySelector('.p') && !`+W+`.querySelector('.p').hidden`)
		p.checkConsole()
	})
}

// waitFor polls a condition on the Go side, such as a request count.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestSmallScreen opens the chat at 320 px, the narrowest width WCAG asks
// for: the panel fills the screen, nothing needs horizontal scrolling, and
// with reduced motion asked for, nothing is animated.
func TestSmallScreen(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)
	p := newPage(t, 60*time.Second)
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
	}); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.EmulateViewport(320, 568, chromedp.EmulateMobile, chromedp.EmulateTouch))
	openChat(p, h.url(pageOptions{}))
	send(p, "How much does shipping cost?")
	p.wait("the answer", W+`.querySelectorAll('.m.a').length == 2`)
	got := eval[map[string]any](p, `(r => {
		const p = r.querySelector('.p').getBoundingClientRect(), send = r.querySelector('[type=submit]').getBoundingClientRect();
		return {width: p.width, height: p.height, overflow: [...r.querySelectorAll('.p, .p *')].some(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX != 'hidden'),
			sendVisible: send.right <= 320 && send.bottom <= 568, animation: getComputedStyle(r.querySelector('.p')).animationName};
	})(`+W+`)`)
	if got["width"] != 320.0 || got["height"] != 568.0 || got["overflow"] != false || got["sendVisible"] != true || got["animation"] != "none" {
		t.Errorf("at 320 px: %v", got)
	}
	p.checkConsole()
}

func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, l := range list {
			found = found || l == w
		}
		if !found {
			return false
		}
	}
	return true
}
