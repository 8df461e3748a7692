package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"parley/internal/testsvc"
)

// One Chromium serves the whole package; each test gets its own browser
// context (like a fresh profile: no storage, no cache) and tab.
var browser struct {
	once    sync.Once
	ctx     context.Context
	cancel  func()
	dataDir string
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
		os.RemoveAll(browser.dataDir)
	}
	os.Exit(code)
}

// chromium finds the browser: $PARLEY_CHROMIUM, Debian's /usr/bin/chromium,
// or chromium on the PATH.
func chromium() string {
	if p := os.Getenv("PARLEY_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	p, _ := exec.LookPath("chromium")
	return p
}

func startBrowser(t testing.TB) context.Context {
	t.Helper()
	path := chromium()
	if path == "" {
		msg := "no Chromium found ($PARLEY_CHROMIUM, /usr/bin/chromium, chromium on the PATH); install Debian's chromium package to run the browser tests"
		testsvc.Unavailable(t, "PARLEY_E2E", "Chromium", msg)
	}
	browser.once.Do(func() {
		browser.dataDir, browser.err = os.MkdirTemp("", "parley-e2e-chromium-")
		if browser.err != nil {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.UserDataDir(browser.dataDir),
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.WindowSize(1280, 800),
			// No traffic of Chromium's own: this machine's network is closed,
			// and the tests must see only the page's requests.
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("hide-scrollbars", true),
			// chromedp's list (Translate, BlinkGenPropertyTrees), and the WebUI
			// omnibox popups Chromium 156 preloads into every window, which is
			// every browser context here: each one's renderer spun for seconds,
			// about 1 s of CPU per test page (docs/testing.md, "How the suite
			// stays fast"). A flag replaces chromedp's list, hence both.
			chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI"),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		browser.ctx = ctx
		browser.cancel = func() { cancelCtx(); cancelAlloc() }
		// Starting the browser happens on the first run; it must not carry
		// a timeout, or the timeout would end the browser.
		browser.err = chromedp.Do(ctx)
	})
	if browser.err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, browser.err)
	}
	return browser.ctx
}

// page is one tab in a fresh browser context, with its console and any
// JavaScript dialogs (alert) recorded.
type page struct {
	t       testing.TB
	ctx     context.Context
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
	dialogs []string
	// accept: dialogs are accepted (a confirmation the test says yes
	// to); otherwise dismissed.
	accept atomic.Bool
}

// newPage opens a tab that lives until the test ends or timeout passes,
// whichever is first, so a hung browser cannot hang the test run.
func newPage(t testing.TB, timeout time.Duration) *page {
	t.Helper()
	tab, cancelTab := chromedp.NewContext(startBrowser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, timeout)
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx}

	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	dialogs := chromedp.Events(ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.dialogs = append(p.dialogs, ev.Message)
			p.mu.Unlock()
			// Answer it, or the page would stay blocked.
			_, _ = chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: p.accept.Load()})
		}
	}()
	return p
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatalf("%v\n%s", err, p.dump())
	}
}

// click clicks, with the mouse, the element js finds. The dashboard's
// live updates redraw parts of a page when a conversation changes, and may
// replace the element between the moment it is found and the click
// (DevTools then knows no such node): it is then found again and clicked,
// as a person clicks the redrawn one.
func (p *page) click(js string) {
	p.t.Helper()
	var err error
	for range 5 {
		if err = chromedp.Do(p.ctx, chromedp.Click(chromedp.JSPath(js))); err == nil {
			return
		}
		if !strings.Contains(err.Error(), "Could not find node with given id") &&
			!strings.Contains(err.Error(), "Node is detached") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("clicking %s: %v\n%s", js, err, p.dump())
}

func (p *page) navigate(url string) {
	p.t.Helper()
	p.do(chromedp.Navigate(url))
}

// eval runs a JavaScript expression in the page. DevTools evaluation is not
// subject to the page's CSP, so the tests can look at anything.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v\n%s", js, err, p.dump())
	}
	return v
}

// wait polls a JavaScript condition until it is truthy; what says, for the
// failure message, what the test was waiting for.
func (p *page) wait(what, js string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		p.t.Fatalf("waiting for %s (%s): %v\n%s", what, js, err, p.dump())
	}
}

// keys types into whatever has the focus, as a visitor would.
func (p *page) keys(s string, opts ...chromedp.KeyOption) {
	p.t.Helper()
	p.do(chromedp.KeyEvent(s, opts...))
}

// enter presses Enter in a text box whose page handles the keydown, as a
// keyboard does: KeyEvent also sends a char event, and that inserts a line
// break whatever the page did with the keydown. (On a button, KeyEvent's
// char event is what activates it, as a real key press does.)
func (p *page) enter() {
	p.t.Helper()
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13,
			}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// W is JavaScript for the widget's shadow root.
const W = `document.querySelector('#parley-widget')?.shadowRoot`

// dump describes the widget's state for failure messages.
func (p *page) dump() string {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const r = `+W+`; return r ? [...r.querySelectorAll('.m, .st, .q button')].map(e => e.className + ': ' + e.textContent).join('\n') : 'no widget' })()`))
	if err != nil {
		s = "(page state unavailable: " + err.Error() + ")"
	}
	return "widget: " + s + "\nconsole:\n" + strings.Join(p.consoleLines(), "\n")
}

func (p *page) consoleLines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.console {
		out = append(out, fmt.Sprintf("  %s %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1))
	}
	return out
}

// checkConsole fails on errors, exceptions and warnings in the console
// (CSP violations show up there), except messages containing one of
// allowed, and on any JavaScript dialog.
func (p *page) checkConsole(allowed ...string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.console {
		if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException && m.Type != chromedp.ConsoleWarning {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || strings.Contains(m.Text, a)
		}
		if !ok {
			p.t.Errorf("console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1)
		}
	}
	if len(p.dialogs) > 0 {
		p.t.Errorf("the page opened JavaScript dialogs: %q", p.dialogs)
	}
}
