package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDemoUnderCSP: /demo has the dashboard's CSP (no inline scripts or
// styles, connections to its own origin only), and the widget on it still
// works in Chromium: it loads, opens, answers, and the console shows no
// CSP violation. The page's favicon loads too.
func TestDemoUnderCSP(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	res, err := http.Get(s.srv.URL + "/demo")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("/demo CSP %q", csp)
	}

	p := newPage(t, 60*time.Second)
	p.navigate(s.srv.URL + "/demo")
	p.wait("the launcher", W+`?.querySelector('.la')`)
	p.click(W + `.querySelector('.la')`)
	p.wait("the greeting", W+`.querySelector('.m.a')?.textContent.includes('Ask me about orders')`)
	p.keys("What are your opening hours?")
	p.enter()
	p.wait("the AI's answer", W+`.querySelectorAll('.m.a')[1]?.textContent.includes('We are open from 9 to 17')`)
	// The demo page is Parley's own: all of it is checked, the widget's
	// open shadow root included.
	checkAxe(t, p, "demo-widget-open")
	// The panel is styled (constructed stylesheets are not inline styles).
	if d := eval[string](p, `getComputedStyle(`+W+`.querySelector('.p')).display`); d != "flex" {
		t.Errorf("the panel's display is %q: its stylesheet did not apply", d)
	}
	if ok := eval[bool](p, `fetch(document.querySelector('link[rel=icon]').href).then(r => r.ok && r.headers.get('Content-Type') == 'image/x-icon')`); !ok {
		t.Error("the favicon did not load")
	}
	p.checkConsole()
}
