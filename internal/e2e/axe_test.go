package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/internal/testsvc"
)

// axe-core (Deque's accessibility engine, MPL-2.0) checks the pages the
// browser tests open against WCAG 2.x A and AA and axe's best practices.
// It is not part of the repository: .ci/run installs a pinned version
// with npm into .cache/axe-core (git-ignored), where the tests read it;
// $PARLEY_AXE_JS names another copy of axe.min.js. Without it the checks
// skip, unless PARLEY_E2E=required (CI) makes that a failure.

// axeDefault is where `npm install --prefix .cache/axe-core` puts it,
// from this package's directory.
const axeDefault = "../../.cache/axe-core/node_modules/axe-core/axe.min.js"

// axeInstall is the command that installs it, for the skip message; the
// version is the one .ci/run pins.
const axeInstall = "npm install --prefix .cache/axe-core --no-save --no-package-lock axe-core@4.14.1"

// axeTags are the rules run: WCAG 2.0, 2.1 and 2.2 at levels A and AA,
// and axe's best practices (landmarks, headings, one main, unique
// landmark names), which catch what a screen reader user meets first.
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"}

var axeScript struct {
	once sync.Once
	src  string
	err  error
}

// axeSource is axe.min.js, read once per test binary.
func axeSource() (string, error) {
	axeScript.once.Do(func() {
		path := os.Getenv("PARLEY_AXE_JS")
		if path == "" {
			path = axeDefault
		}
		var b []byte
		b, axeScript.err = os.ReadFile(path)
		if axeScript.err != nil {
			abs, _ := filepath.Abs(path)
			axeScript.err = fmt.Errorf("axe-core not found at %s (%v); from the repository's root: %s, or set $PARLEY_AXE_JS to an axe.min.js", abs, axeScript.err, axeInstall)
			return
		}
		axeScript.src = string(b)
	})
	return axeScript.src, axeScript.err
}

// needAxe gives axe.min.js, or skips the test (fails it where
// PARLEY_E2E=required) when there is none.
func needAxe(t *testing.T) string {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		testsvc.Unavailable(t, "PARLEY_E2E", "axe-core", err.Error())
	}
	return src
}

// axeViolation is one rule a page breaks, with the elements that break it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	URL    string `json:"helpUrl"`
	Nodes  []struct {
		Target  string `json:"target"`
		Summary string `json:"summary"`
	} `json:"nodes"`
}

// axeRunJS runs axe on the context (a JavaScript expression: document, or
// an include list) and gives its violations, each element as one
// selector ("host >>> inside" across a shadow root).
const axeRunJS = `(async context => {
	const r = await axe.run(context, {
		runOnly: {type: 'tag', values: %s},
		resultTypes: ['violations'],
		iframes: false,
	});
	const sel = t => t.map(s => Array.isArray(s) ? s.join(' >>> ') : s).join(' ');
	return r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help, helpUrl: v.helpUrl,
		nodes: v.nodes.map(n => ({target: sel(n.target), summary: n.failureSummary || ''}))}));
})(%s)`

// checkAxe runs axe-core on the whole page as it is now.
func checkAxe(t *testing.T, p *page, name string) {
	t.Helper()
	checkAxeIn(t, p, name, "document")
}

// checkAxeWidget runs axe-core on the widget alone (its host element and
// open shadow root): the host pages around it are the tests' fixtures,
// not Parley's.
func checkAxeWidget(t *testing.T, p *page, name string) {
	t.Helper()
	checkAxeIn(t, p, name, `{include: [['#parley-widget']]}`)
}

// checkAxeIn runs axe-core in a subtest named "axe <name>", so that a
// laptop without axe-core skips only the check and the test goes on.
func checkAxeIn(t *testing.T, p *page, name, context string) {
	t.Helper()
	t.Run("axe "+name, func(t *testing.T) {
		vs, err := axeRun(t, p, context)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			t.Error(v.describe(name))
		}
	})
}

// axeRun gives the violations axe-core finds in the page now. The script
// is given to the page through DevTools (Runtime.evaluate), which the
// page's Content-Security-Policy does not govern (TestAxeFindsViolations
// shows it under script-src 'self'): the pages are checked with their
// real CSP, and a test's console check would show a violation if axe
// tripped it.
func axeRun(t *testing.T, p *page, context string) ([]axeViolation, error) {
	t.Helper()
	src := needAxe(t)
	loaded, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`typeof axe == 'object' && typeof axe.run == 'function'`))
	if err != nil {
		return nil, fmt.Errorf("looking for axe in the page: %v", err)
	}
	if !loaded {
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[chromedp.Void](src+"\n;undefined")); err != nil {
			return nil, fmt.Errorf("loading axe-core into the page: %v", err)
		}
	}
	tags := `['` + strings.Join(axeTags, `', '`) + `']`
	vs, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]axeViolation](fmt.Sprintf(axeRunJS, tags, context), chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("running axe: %v", err)
	}
	return vs, nil
}

// describe is a violation as a failure message: the rule, its impact and
// help, and each element with what to fix.
func (v axeViolation) describe(page string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (%s): %s — %s", page, v.ID, v.Impact, v.Help, v.URL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %s\n      %s", n.Target, strings.ReplaceAll(n.Summary, "\n", "\n      "))
	}
	return b.String()
}

// TestAxeFindsViolations shows the check can fail: on a page served with
// script-src 'self', axe-core (loaded through DevTools all the same)
// finds an unnamed button inside an open shadow root, grey text on white
// and an image without a text alternative, and names each element.
func TestAxeFindsViolations(t *testing.T) {
	t.Parallel()
	needAxe(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><head><title>axe</title><link rel="stylesheet" href="/a.css"></head>
<body><main><h1>Check</h1><p class="faint">Hard to read</p><img src="/a.png"><div id="host"></div></main><script src="/a.js"></script></body></html>`)
	})
	mux.HandleFunc("GET /a.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		io.WriteString(w, `.faint { color: #bbb; background: #fff; }`)
	})
	mux.HandleFunc("GET /a.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, `const r = document.getElementById('host').attachShadow({mode: 'open'});
r.innerHTML = '<button class="icon"></button>'; document.body.dataset.ready = '1';`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	p := newPage(t, 60*time.Second)
	p.navigate(srv.URL + "/")
	p.wait("the shadow root", `document.body.dataset.ready == '1'`)
	vs, err := axeRun(t, p, "document")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range vs {
		for _, n := range v.Nodes {
			got[v.ID] += n.Target + ";"
		}
	}
	want := map[string]string{"button-name": "#host >>> button;", "color-contrast": "p;", "image-alt": "img;"}
	for id, target := range want {
		if got[id] != target {
			t.Errorf("%s: found on %q, want %q (all: %v)", id, got[id], target, got)
		}
	}
	p.checkConsole(`Failed to load resource`) // a.png is not served
}
