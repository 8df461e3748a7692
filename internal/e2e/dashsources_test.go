package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/internal/domain"
)

// gatedSite is a small website on 127.0.0.1: a home page linking to three
// pages, one of which is held until the test opens the gate, so that the
// test sees the sync running before it sees it end.
type gatedSite struct {
	srv  *httptest.Server
	gate chan struct{}
	once sync.Once
}

func newGatedSite(t *testing.T) *gatedSite {
	t.Helper()
	g := &gatedSite{gate: make(chan struct{})}
	page := func(title, body string) string {
		return `<!doctype html><html lang="en"><head><title>` + title + `</title></head><body><nav><a href="/">Home</a></nav><main><h1>` +
			title + `</h1><p>` + body + `</p></main></body></html>`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Northwind shop", `Welcome to Northwind. Read about <a href="/delivery">delivery</a>, <a href="/returns">returns</a> and <a href="/care">caring for your boots</a>.`))
	})
	mux.HandleFunc("GET /delivery", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Delivery", "Parcels to Chisinau arrive within two working days by courier."))
	})
	mux.HandleFunc("GET /returns", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Returns", "You can return boots within 30 days; the refund reaches you within a week."))
	})
	mux.HandleFunc("GET /care", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-g.gate:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, page("Caring for leather boots", "Clean them with a damp cloth and use wax once a month."))
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	t.Cleanup(g.open) // before the server closes: a held request would block Close
	return g
}

func (g *gatedSite) open() { g.once.Do(func() { close(g.gate) }) }

// sourcesProbes: the status badges of the sources shown in the viewport,
// in viewport coordinates (the capture is of the viewport, scrolled to
// the section).
const sourcesProbes = `[...document.querySelectorAll('.source .mode, #add-source button')].map(el => {
	const r = el.getBoundingClientRect();
	return {what: el.textContent, x: r.left + 3, y: r.top + r.height / 2, color: getComputedStyle(el).backgroundColor};
}).filter(p => p.y > 0 && p.y < innerHeight)`

// TestDashboardWebsiteSource: the owner adds the local site in the
// dashboard with the keyboard; the list shows it syncing, then — without
// a reload — ready with its page count, the focus left where it was and
// the change said in the status line; the pages list has each page's
// title, a link that opens in a new tab with no way back, and its size;
// the section reads in Romanian too; removing it asks first, and once
// confirmed it is gone from the page and the store.
func TestDashboardWebsiteSource(t *testing.T) {
	t.Parallel()
	s := newStackWith(t, stackOptions{sources: true})
	site := newGatedSite(t)
	owner, _ := dashboardUsers(t, s)
	ctx := context.Background()
	ags, err := s.store.Agents(ctx, owner.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ags, func(a domain.Agent) bool { return a.ChatbotName == "Northwind Help" })
	agent := ags[i]
	dir := t.ArtifactDir()
	update := os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1"

	p := newPage(t, 120*time.Second)
	p.do(chromedp.EmulateViewport(1280, 900))
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/agents/" + agent.ID + "#sources")
	settle(p, "the sources section", `document.querySelector('#sources .empty')`)

	// Add the site with the keyboard: the address, then Enter.
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#source-url')`)))
	p.keys(site.srv.URL + "/")
	p.keys(kb.Enter)
	settle(p, "the new source, syncing", `location.search.includes('flash=sources.added') && document.querySelector('#sources li.source[data-status="syncing"]')`)
	if got := eval[string](p, `document.querySelector('#sources li.source .mode').textContent`); got != "Syncing…" {
		t.Fatalf("status while syncing: %q", got)
	}
	id := eval[string](p, `document.querySelector('#sources li.source').id.replace('src-', '')`)
	// Marks this document, to tell a reload from the list refreshing itself.
	eval[bool](p, `(window.sameDocument = true)`)
	// The keyboard user is on the source's pages link while it syncs.
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#src-pages-` + id + `')`)))

	site.open()
	settle(p, "the source ready with its pages, without a reload",
		`window.sameDocument && document.querySelector('#sources li.source[data-status="ready"]') && document.querySelector('#sources li.source .count').textContent == 'Pages: 4'`)
	if got := eval[string](p, `document.activeElement.id`); got != "src-pages-"+id {
		t.Errorf("after the refresh the focus is on %q, want the pages link", got)
	}
	if got := eval[string](p, `document.querySelector('#sources-status').textContent`); !strings.Contains(got, site.srv.URL+"/: Ready, Pages: 4") {
		t.Errorf("status line: %q", got)
	}
	if eval[bool](p, `!!document.querySelector('#sources [data-active]')`) {
		t.Error("the list still polls once nothing syncs")
	}
	eval[bool](p, `(document.activeElement.blur(), document.querySelector('#sources').scrollIntoView(), true)`)
	// docs: PARLEY_UPDATE_SCREENSHOTS=1 also writes it to docs/screenshots.
	shot := func(name string, full, docs bool, probes string) {
		t.Helper()
		b := recompress(t, capture(p, name, full, probes))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if update && docs {
			if err := os.WriteFile(filepath.Join(screenshotDocs, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	shot("dashboard-sources-en.png", false, true, sourcesProbes)

	// The pages it took in.
	p.click(`document.querySelector('#src-pages-` + id + `')`)
	settle(p, "the pages list", `document.querySelectorAll('table.pages tbody tr').length == 4`)
	type pageRow struct{ Title, URL, Rel, Target, Size string }
	rows := eval[[]pageRow](p, `[...document.querySelectorAll('table.pages tbody tr')].map(tr => ({Title: tr.cells[0].textContent,
		URL: tr.cells[1].querySelector('a')?.href, Rel: tr.cells[1].querySelector('a')?.rel, Target: tr.cells[1].querySelector('a')?.target, Size: tr.cells[2].textContent}))`)
	titles := []string{}
	for _, r := range rows {
		titles = append(titles, r.Title)
		if !strings.HasPrefix(r.URL, site.srv.URL+"/") || !strings.Contains(r.Rel, "noopener") || r.Target != "_blank" || !strings.HasSuffix(r.Size, " characters") {
			t.Errorf("page row %+v", r)
		}
	}
	slices.Sort(titles)
	if want := []string{"Caring for leather boots", "Delivery", "Northwind shop", "Returns"}; !slices.Equal(titles, want) {
		t.Errorf("pages %q, want %q", titles, want)
	}
	shot("dashboard-source-pages-en.png", true, true, dashboardProbes)

	// In Romanian.
	p.navigate(s.srv.URL + "/agents/" + agent.ID)
	eval[bool](p, `(document.querySelector('#lang-switch').value = 'ro', document.querySelector('#lang-switch').form.submit(), true)`)
	// Loaded in full before it is scrolled: the browser may restore the
	// earlier scroll position of this same address while it loads.
	settle(p, "the Romanian page", `document.documentElement.lang == 'ro' && document.readyState == 'complete' && document.querySelector('#sources h2')`)
	if got := eval[string](p, `document.querySelector('#sources h2').textContent + ' | ' + document.querySelector('#sources li.source .mode').textContent + ' | ' + document.querySelector('#sources li.source .count').textContent`); got != "Site-uri sursă | Gata | Pagini: 4" {
		t.Errorf("Romanian section: %q", got)
	}
	settle(p, "the sources section in view", `(document.querySelector('#sources').scrollIntoView(),
		(r => r.top > 0 && r.bottom < innerHeight)(document.querySelector('#sources li.source .mode').getBoundingClientRect()))`)
	shot("dashboard-sources-ro.png", false, false, sourcesProbes)
	eval[bool](p, `(document.querySelector('#lang-switch').value = 'en', document.querySelector('#lang-switch').form.submit(), true)`)
	settle(p, "the English page", `document.documentElement.lang == 'en' && document.querySelector('#src-del-`+id+`')`)

	// Remove: the first time the owner says no, then yes.
	p.click(`document.querySelector('#src-del-` + id + `')`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		p.mu.Lock()
		n := len(p.dialogs)
		p.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("removing asked nothing")
		}
	}
	// The page runs again once the question is answered: the submit
	// handler has returned by the time this evaluates.
	if !eval[bool](p, `!!document.querySelector('#src-del-`+id+`') && !location.search.includes('removed')`) {
		t.Fatal("the page left after the owner said no")
	}
	if list, _ := s.store.Sources(ctx, owner.AccountID, agent.ID); len(list) != 1 {
		t.Fatalf("dismissing the question removed the source: %d left", len(list))
	}
	p.accept.Store(true)
	p.click(`document.querySelector('#src-del-` + id + `')`)
	settle(p, "the removal", `location.search.includes('flash=sources.removed') && document.querySelector('#sources .empty')`)
	p.mu.Lock()
	asked := slices.Clone(p.dialogs)
	p.dialogs = nil
	p.mu.Unlock()
	want := "Remove " + site.srv.URL + "/? Its pages stop answering visitors at once."
	if len(asked) != 2 || asked[0] != want || asked[1] != want {
		t.Errorf("the questions asked: %q, want twice %q", asked, want)
	}
	if list, _ := s.store.Sources(ctx, owner.AccountID, agent.ID); len(list) != 0 {
		t.Fatalf("%d sources after the removal", len(list))
	}
	p.checkConsole()
}

// TestDashboardSourcePageRefreshes: a source's page opened while its sync
// runs shows it syncing, then — without a reload — ready with its page
// count and the pages it took in, the change said in the status line and
// the polling stopped.
func TestDashboardSourcePageRefreshes(t *testing.T) {
	t.Parallel()
	s := newStackWith(t, stackOptions{sources: true})
	site := newGatedSite(t)
	owner, _ := dashboardUsers(t, s)
	ags, err := s.store.Agents(context.Background(), owner.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	agent := ags[slices.IndexFunc(ags, func(a domain.Agent) bool { return a.ChatbotName == "Northwind Help" })]

	p := newPage(t, 120*time.Second)
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/agents/" + agent.ID + "#sources")
	settle(p, "the sources section", `document.querySelector('#source-url')`)
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#source-url')`)))
	p.keys(site.srv.URL + "/")
	p.keys(kb.Enter)
	settle(p, "the new source, syncing", `location.search.includes('flash=sources.added') && document.querySelector('#sources li.source[data-status="syncing"]')`)
	id := eval[string](p, `document.querySelector('#sources li.source').id.replace('src-', '')`)

	p.navigate(s.srv.URL + "/agents/" + agent.ID + "/sources/" + id)
	settle(p, "the source's page, syncing", `document.querySelector('#source-state[data-status="syncing"]') && document.querySelector('#pages .empty')`)
	if !eval[bool](p, `document.querySelector('#source-sync').disabled`) {
		t.Error("Sync now is enabled while a sync runs")
	}
	eval[bool](p, `(window.sameDocument = true)`)

	site.open()
	settle(p, "the source ready with its pages, without a reload",
		`window.sameDocument && document.querySelector('#source-state[data-status="ready"]') && document.querySelectorAll('table.pages tbody tr').length == 4`)
	if got := eval[string](p, `document.querySelector('#source-state .count').textContent`); got != "Pages: 4" {
		t.Errorf("count %q", got)
	}
	if got := eval[string](p, `document.querySelector('#source-status').textContent`); got != "Ready, Pages: 4" {
		t.Errorf("status line: %q", got)
	}
	if eval[bool](p, `!!document.querySelector('#source-facts [data-active]') || document.querySelector('#source-sync').disabled`) {
		t.Error("the facts still poll, or Sync now is still disabled, once the sync ended")
	}
	p.checkConsole()
}
