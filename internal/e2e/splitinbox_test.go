package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The operator desk's split inbox in Chromium (issue 19): a conversation
// open beside the list, a new visitor's message arriving in the list
// without a reload, j/k moving between conversations, the shortcuts used
// from the keyboard only (and never while typing), the visitor's details,
// and screenshots in en/ro/ru at a wide and a narrow width.
func TestDeskSplitInbox(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	dashboardUsers(t, s)
	first := s.visitor("en")
	first.say("What are your opening hours?")
	// The second visitor's widget told the server about the browser.
	second := &visitor{t: t, s: s, key: s.keys["en"], lang: "en"}
	var r struct {
		ConversationID string `json:"conversation_id"`
	}
	second.post("/api/widget/init", map[string]any{"key": second.key, "page_url": "https://northwind.example/",
		"time_zone": "Europe/Bucharest", "language": "ro-RO", "referrer": "https://search.example/results"}, &r)
	second.conv = r.ConversationID
	second.post("/api/widget/chat", map[string]any{"key": second.key, "conversation_id": second.conv, "text": "Do you ship boots?", "page_url": "https://northwind.example/boots"}, nil)

	p := newPage(t, 120*time.Second)
	p.do(chromedp.EmulateViewport(1280, 860))
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/conversations/" + second.conv)
	settle(p, "the split view", `document.querySelector('.desk.has-open .desk-details') && document.querySelector('#inbox a[aria-current="page"]') && document.readyState == 'complete'`)
	details := eval[string](p, `document.querySelector('.desk-details').textContent`)
	for _, want := range []string{"Europe/Bucharest", "ro-RO", "https://search.example/results", "https://northwind.example/boots"} {
		if !strings.Contains(details, want) {
			t.Errorf("the visitor's details lack %q: %s", want, details)
		}
	}

	// Live: a new visitor's message shows in the list, and no reload.
	eval[bool](p, `(window.deskMark = 1, true)`)
	for deadline := time.Now().Add(10 * time.Second); s.hub.Len() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the page's live streams never subscribed")
		}
	}
	third := s.visitor("en")
	third.say("Is anybody there?")
	settle(p, "the new conversation in the open inbox", `!!document.querySelector('#inbox tr[data-id="`+third.conv+`"] .preview')`)
	settle(p, "its unread count", `document.querySelector('#inbox tr[data-id="`+third.conv+`"] .unread')?.textContent.startsWith('1')`)
	if !eval[bool](p, `window.deskMark === 1 && !!document.querySelector('#inbox a[aria-current="page"]')`) {
		t.Fatal("the page reloaded, or the open conversation lost its mark")
	}
	// The list goes by latest activity: the oldest conversation's visitor
	// writes again, and its row moves from the bottom to the top, live.
	top := `document.querySelector('#inbox tbody:not(.pinned) tr[data-id]')?.dataset.id`
	if got := eval[string](p, top); got != third.conv {
		t.Fatalf("top row %s, want the newest conversation %s", got, third.conv)
	}
	first.say("How much does shipping cost?")
	settle(p, "the older conversation moved to the top", top+` == '`+first.conv+`'`)
	if !eval[bool](p, `window.deskMark === 1`) {
		t.Fatal("the page reloaded")
	}

	// Keyboard only: j and k move between conversations (the list is by
	// latest activity: first, third, second).
	order := eval[[]string](p, `[...document.querySelectorAll('#inbox tr[data-id]')].map(tr => tr.dataset.id)`)
	if want := []string{first.conv, third.conv, second.conv}; !slices.Equal(order, want) {
		t.Fatalf("list order %v, want %v", order, want)
	}
	prev := third.conv
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur()`))
	press(p, "k")
	settle(p, "k: the previous conversation", `location.pathname == '/conversations/`+prev+`' && document.querySelector('#inbox a[aria-current="page"]')?.closest('tr').dataset.id == '`+prev+`' && document.readyState == 'complete'`)
	press(p, "j")
	settle(p, "j: back", `location.pathname == '/conversations/`+second.conv+`' && !!document.querySelector('.transcript') && document.readyState == 'complete'`)

	// ? opens the help, Escape closes it.
	press(p, "?")
	settle(p, "the shortcuts' help", `document.querySelector('#shortcuts').open`)
	// The backdrop dims the header: the dialog's own button is probed.
	shotDeskViewport(t, p, "desk-shortcuts-en", `(probe => [probe('the close button', document.querySelector('#shortcuts button'), 6, 12, 'backgroundColor')])(`+probeJS+`)`)
	p.keys(kb.Escape)
	settle(p, "the help closed", `!document.querySelector('#shortcuts').open`)

	// r goes to the reply box; a j typed there is text, not a move.
	press(p, "r")
	settle(p, "r: the reply box", `document.activeElement.id == 'reply-text'`)
	p.keys("jk")
	time.Sleep(300 * time.Millisecond) // a move, if one were made, would have begun
	if got := eval[string](p, `location.pathname + ' ' + document.querySelector('#reply-text').value`); got != "/conversations/"+second.conv+" jk" {
		t.Fatalf("typing in the reply box: %q", got)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`(document.querySelector('#reply-text').value = '', document.activeElement.blur())`))

	// t takes over, h hands back.
	press(p, "t")
	settle(p, "t: taken over", `document.querySelector('.state')?.textContent.includes('You are answering') && document.readyState == 'complete'`)
	press(p, "h")
	settle(p, "h: handed back", `!!document.querySelector('form[action$="/takeover"]')`)

	// Screenshots: the split inbox in three languages, wide and narrow.
	for _, lang := range []string{"en", "ro", "ru"} {
		p.do(chromedp.EmulateViewport(1280, 860))
		p.navigate(s.srv.URL + "/conversations/" + second.conv)
		eval[bool](p, `(document.querySelector('#lang-switch').value = '`+lang+`', document.querySelector('#lang-switch').form.submit(), true)`)
		settle(p, "the page in "+lang, `document.documentElement.lang == '`+lang+`' && !!document.querySelector('.desk-details')`)
		shotDesk(t, p, "desk-wide-"+lang)
		if lang == "en" {
			// A search: its rows, and the order it is in said under the box.
			p.navigate(s.srv.URL + "/inbox?q=boots")
			settle(p, "the search", `!!document.querySelector('#search-order') && !!document.querySelector('#inbox tr[data-id="`+second.conv+`"]')`)
			if eval[bool](p, `!!document.querySelector('#inbox tr[data-id="`+first.conv+`"]')`) {
				t.Error("the search for boots lists the conversation about opening hours")
			}
			shotDesk(t, p, "desk-search-wide-en")
		}
		p.do(chromedp.EmulateViewport(390, 844))
		p.navigate(s.srv.URL + "/conversations/" + second.conv)
		settle(p, "the narrow conversation", `!!document.querySelector('.transcript') && document.readyState == 'complete'`)
		if eval[bool](p, `getComputedStyle(document.querySelector('.desk-list')).display != 'none' || getComputedStyle(document.querySelector('.desk-back')).display == 'none'`) {
			t.Errorf("%s, narrow: the list shows beside the conversation, or there is no way back", lang)
		}
		shotDesk(t, p, "desk-narrow-conversation-"+lang)
		p.navigate(s.srv.URL + "/inbox")
		settle(p, "the narrow inbox", `!!document.querySelector('#inbox tr') && document.readyState == 'complete'`)
		if eval[bool](p, `getComputedStyle(document.querySelector('.desk-main')).display != 'none'`) {
			t.Errorf("%s, narrow: the empty middle shows under the list", lang)
		}
		shotDesk(t, p, "desk-narrow-inbox-"+lang)
	}
	p.checkConsole()
}

// press presses a shortcut key as a keyboard does, without the char
// event KeyEvent adds (which would type the key into whatever the
// shortcut focused, whatever the page did with the keydown).
func press(p *page, key string) {
	p.t.Helper()
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: key}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// shotDesk writes a screenshot of the page to the test's artifacts (and
// with PARLEY_UPDATE_SCREENSHOTS=1 to docs/screenshots).
func shotDesk(t *testing.T, p *page, name string) {
	t.Helper()
	shotDeskWith(t, p, name, dashboardProbes)
}

func shotDeskWith(t *testing.T, p *page, name, probes string) {
	t.Helper()
	checkAxe(t, p, name)
	file := "dashboard-" + name + ".png"
	b := recompress(t, capture(p, file, true, probes))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), file), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
