package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/web/i18n"
)

// sources is the agent's sources as the store has them.
func (e *agEnv) sources(a domain.Agent) []domain.Source {
	e.t.Helper()
	list, err := e.st.Sources(context.Background(), a.AccountID, a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

// The owner adds a website, sees it in the list with its status and page
// count while it syncs (also in the fragment the page polls), then ready
// with what it left out, opens its pages, syncs it again and removes it
// after confirming.
func TestDashboardSources(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	base := "/agents/" + a.ID

	p := e.get(base)
	agMustContain(t, "agent page", p.body, `<a href="#sources">Website sources</a>`, "No websites yet.",
		`<label for="source-url">Website address</label>`, `<option value="24h" selected>Every day</option>`, `value="200"`)

	p = e.post(base+"/sources", url.Values{"url": {"https://93.184.215.14/help/"}, "max_pages": {"50"}, "sync_every": {"6h"}})
	if p.status != http.StatusSeeOther || p.location != base+"?flash=sources.added#sources" {
		t.Fatalf("add: %d %q %s", p.status, p.location, p.body)
	}
	list := e.sources(a)
	if len(list) != 1 || list[0].URL != "https://93.184.215.14/help/" || list[0].MaxPages != 50 || list[0].SyncEvery != 6*time.Hour {
		t.Fatalf("sources after add: %+v", list)
	}
	src := list[0]
	p = e.follow(p)
	agMustContain(t, "queued", p.body, "Website added; its first sync has started.",
		`<li id="src-`+src.ID+`" class="source" data-status="queued"`, `<span class="mode status-queued">Waiting to sync</span>`,
		"Pages: 0", "Every 6 hours", `<ul class="sources" data-active>`,
		`<a href="https://93.184.215.14/help/" rel="noopener noreferrer nofollow" target="_blank">`,
		`data-confirm="Remove https://93.184.215.14/help/? Its pages stop answering visitors at once."`)

	// Syncing: the page count grows, and the fragment says so alone.
	ctx := context.Background()
	if err := e.st.StartSourceSync(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetSourceProgress(ctx, src.ID, 1230); err != nil {
		t.Fatal(err)
	}
	frag := e.get(base + "/sources")
	if frag.status != http.StatusOK || strings.Contains(frag.body, "<html") || strings.Contains(frag.body, `id="add-source"`) {
		t.Fatalf("fragment: %d %s", frag.status, frag.body)
	}
	agMustContain(t, "syncing fragment", frag.body, `data-status="syncing"`, "Syncing…", "Pages: 1,230", `<ul class="sources" data-active>`,
		`id="src-sync-`+src.ID+`" class="secondary" aria-describedby="src-h-`+src.ID+`" disabled>Sync now</button>`)

	// Ready, with a note of what was left out: no more polling.
	synced := time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)
	pages := []domain.SourcePage{
		{URL: "https://93.184.215.14/help/delivery", Title: "Delivery", Text: "# Delivery\n\nParcels arrive within two working days."},
		{URL: "https://93.184.215.14/help/returns", Title: "Returns <b>policy</b>", Text: "# Returns\n\nReturns within 30 days."},
	}
	if err := e.st.ReplaceSourcePages(ctx, src.ID, pages, store.SourceSync{At: synced, Note: "3 pages repeated another page's text"}); err != nil {
		t.Fatal(err)
	}
	p = e.get(base)
	agMustContain(t, "ready", p.body, `<span class="mode status-ready">Ready</span>`, "Pages: 2",
		`<time datetime="2026-05-04T10:30:00Z">2026-05-04 10:30</time>`, `<time datetime="2026-05-04T16:30:00Z">`,
		`Not everything was taken in: <span lang="en">3 pages repeated another page&#39;s text</span>`)
	agMustNotContain(t, "ready", p.body, `<ul class="sources" data-active>`, "The last sync failed")

	// Its pages: title as text, the URL a link that cannot reach back,
	// the size.
	p = e.get(base + "/sources/" + src.ID)
	if p.status != http.StatusOK {
		t.Fatalf("source page: %d", p.status)
	}
	agMustContain(t, "source page", p.body, "Pages taken in", "Delivery", "Returns &lt;b&gt;policy&lt;/b&gt;",
		`<a href="https://93.184.215.14/help/delivery" rel="noopener noreferrer nofollow" target="_blank">`,
		"51 characters", `href="/agents/`+a.ID+`#sources">Back to Helper</a>`)

	// Sync now: queued again, and the list polls.
	p = e.post(base+"/sources/"+src.ID+"/sync", nil)
	if p.status != http.StatusSeeOther || p.location != base+"?flash=sources.syncing#src-"+src.ID {
		t.Fatalf("sync now: %d %q", p.status, p.location)
	}
	if got := e.sources(a)[0]; got.Status != domain.SourceQueued {
		t.Fatalf("after sync now: %s", got.Status)
	}
	agMustContain(t, "after sync now", e.follow(p).body, "Sync started.", `data-status="queued"`, "data-active")
	if p := e.post(base+"/sources/"+src.ID+"/sync", url.Values{"back": {"source"}}); p.location != base+"/sources/"+src.ID+"?flash=sources.syncing" {
		t.Fatalf("sync now from the source's page goes back to %q", p.location)
	}

	// Failed: the reason in plain words.
	if err := e.st.FailSourceSync(ctx, src.ID, store.SourceFailure{At: synced, Error: "the site could not be read: 503 Service Unavailable"}); err != nil {
		t.Fatal(err)
	}
	agMustContain(t, "failed", e.get(base).body, `<span class="mode status-failed">Failed</span>`,
		`The last sync failed: <span lang="en">the site could not be read: 503 Service Unavailable</span>`)

	// Remove: without confirmed=1 (no script) the source's page asks.
	p = e.post(base+"/sources/"+src.ID+"/delete", url.Values{"confirmed": {""}})
	if p.status != http.StatusOK || len(e.sources(a)) != 1 {
		t.Fatalf("remove unconfirmed: %d, %d sources", p.status, len(e.sources(a)))
	}
	agMustContain(t, "confirmation", p.body, "Remove this website?", "Its pages (2) stop answering visitors at once.",
		`<input type="hidden" name="confirmed" value="1">`, `autofocus>Remove</button>`)
	p = e.post(base+"/sources/"+src.ID+"/delete", url.Values{"confirmed": {"1"}})
	if p.status != http.StatusSeeOther || p.location != base+"?flash=sources.removed#sources" || len(e.sources(a)) != 0 {
		t.Fatalf("remove: %d %q, %d sources left", p.status, p.location, len(e.sources(a)))
	}
	agMustContain(t, "after remove", e.follow(p).body, "Website removed.", "No websites yet.")
	if p := e.get(base + "/sources/" + src.ID); p.status != http.StatusNotFound {
		t.Fatalf("a removed source's page: %d", p.status)
	}
}

// The service's refusals are said in the owner's language next to the
// form, with what was typed kept.
func TestDashboardSourceRefusals(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	path := "/agents/" + a.ID + "/sources"
	for _, tc := range []struct {
		form    url.Values
		want    string
		invalid string // the field marked invalid
	}{
		{url.Values{"url": {"http://127.0.0.1:8080/"}, "max_pages": {"10"}, "sync_every": {"0"}},
			"The address leads to 127.0.0.1, a loopback address. This server does not read private addresses", `id="source-url"`},
		{url.Values{"url": {"example.com"}}, "The address must start with http:// or https://", `id="source-url"`},
		{url.Values{"url": {""}}, "Enter the website&#39;s address.", `id="source-url"`},
		{url.Values{"url": {"https://93.184.215.14/"}, "max_pages": {"2001"}}, "Maximum pages must be a whole number from 1 to 2000.", `id="source-max"`},
		{url.Values{"url": {"https://93.184.215.14/"}, "max_pages": {"many"}}, "Maximum pages must be a whole number from 1 to 2000.", `id="source-max"`},
		{url.Values{"url": {"https://93.184.215.14/"}, "sync_every": {"5m"}}, "Syncing again is possible at most once an hour.", `id="source-every"`},
	} {
		p := e.post(path, tc.form)
		if p.status != http.StatusBadRequest {
			t.Errorf("%v: %d, want 400", tc.form, p.status)
			continue
		}
		agMustContain(t, tc.form.Encode(), p.body, `<p class="error" role="alert" id="source-problem">`+tc.want,
			`value="`+tc.form.Get("url")+`"`)
		if got := regexp.MustCompile(`<(?:input|select)[^>]*aria-invalid="true"[^>]*>`).FindAllString(p.body, -1); len(got) != 1 || !strings.Contains(got[0], tc.invalid) {
			t.Errorf("%v: fields marked invalid: %q, want the one with %s", tc.form, got, tc.invalid)
		}
	}
	if list := e.sources(a); len(list) != 0 {
		t.Fatalf("refused sources were saved: %+v", list)
	}
	// The form comes back with the schedule chosen.
	p := e.post(path, url.Values{"url": {"http://127.0.0.1/"}, "sync_every": {"168h"}})
	agMustContain(t, "schedule kept", p.body, `<option value="168h" selected>Every week</option>`)

	for lang, want := range map[string]string{
		"ro": "Adresa duce la 127.0.0.1, o adresă loopback.",
		"ru": "Адрес ведёт к 127.0.0.1, адрес обратной петли (loopback).",
	} {
		r := httptest.NewRequest("POST", "http://example.com"+path, strings.NewReader(url.Values{"url": {"http://127.0.0.1/"}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: langCookie, Value: lang})
		if p := e.send(e.session, r); p.status != http.StatusBadRequest || !strings.Contains(p.body, want) {
			t.Errorf("%s: %d, want 400 with %q", lang, p.status, want)
		}
	}
}

// Another account's sources, and sources through another agent, are not
// found; operators may not manage sources at all.
func TestDashboardSourcesOtherAccount(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	other, _ := e.newAgent(e.owner.AccountID, "Second")
	src, err := e.d.Sources.Create(context.Background(), e.owner.AccountID, a.ID, sources.NewSource{Kind: "website", URL: "https://93.184.215.14/"})
	if err != nil {
		t.Fatal(err)
	}
	_, stranger := e.account("stranger@example.com")
	for _, tc := range []struct {
		session, method, path string
	}{
		{stranger, "GET", "/agents/" + a.ID + "/sources"},
		{stranger, "GET", "/agents/" + a.ID + "/sources/" + src.ID},
		{stranger, "POST", "/agents/" + a.ID + "/sources"},
		{stranger, "POST", "/agents/" + a.ID + "/sources/" + src.ID + "/sync"},
		{stranger, "POST", "/agents/" + a.ID + "/sources/" + src.ID + "/delete"},
		{e.session, "GET", "/agents/" + other.ID + "/sources/" + src.ID},
		{e.session, "POST", "/agents/" + other.ID + "/sources/" + src.ID + "/sync"},
		{e.session, "POST", "/agents/" + other.ID + "/sources/" + src.ID + "/delete"},
	} {
		var p agResp
		if tc.method == "GET" {
			p = e.send(tc.session, httptest.NewRequest("GET", "http://example.com"+tc.path, nil))
		} else {
			p = e.postAs(tc.session, tc.path, url.Values{"url": {"https://93.184.215.14/x"}, "confirmed": {"1"}})
		}
		if p.status != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404", tc.method, tc.path, p.status)
		}
	}
	list := e.sources(a)
	if len(list) != 1 || list[0].Status != domain.SourceQueued || len(e.sources(other)) != 0 {
		t.Fatalf("sources after the refused requests: %+v", list)
	}

	op, err := e.st.CreateUser(context.Background(), store.NewUser{AccountID: e.owner.AccountID, Email: "op@example.com", Name: "Op", PasswordHash: "x", Role: domain.UserOperator})
	if err != nil {
		t.Fatal(err)
	}
	if p := e.postAs(e.sessionOf(op), "/agents/"+a.ID+"/sources/"+src.ID+"/delete", url.Values{"confirmed": {"1"}}); p.status != http.StatusForbidden {
		t.Fatalf("an operator removing a source: %d", p.status)
	}
}

// Every status, schedule and refusal the section can show has its text in
// every language (the templates build these keys, so the template check
// cannot see them).
func TestSourceMessagesExist(t *testing.T) {
	t.Parallel()
	keys := []string{}
	for _, s := range []domain.SourceStatus{domain.SourceQueued, domain.SourceSyncing, domain.SourceReady, domain.SourceFailed} {
		keys = append(keys, statusKey(s))
	}
	for _, c := range everyChoices {
		keys = append(keys, c.Key)
	}
	for _, p := range sources.Problems {
		keys = append(keys, "sources.problem."+string(p))
	}
	for _, k := range keys {
		for _, lang := range i18n.Languages {
			if !i18n.Has(k) || T(lang, k) == k || (lang != "en" && T(lang, k) == T("en", k)) {
				t.Errorf("%s: no %s text (%q)", k, lang, T(lang, k))
			}
		}
	}
	// The form's choices are schedules the service takes.
	for _, c := range everyChoices {
		if _, err := time.ParseDuration(c.Value); err != nil || !regexp.MustCompile(`^(0|\d+h)$`).MatchString(c.Value) {
			t.Errorf("schedule %q", c.Value)
		}
	}
}

// A source's page refreshes its facts while a sync runs, as the list on
// the agent's page does: the facts alone (?part=facts) and, once it has
// ended, the pages it took in (?part=pages), each a fragment of the page.
func TestDashboardSourcePageFragments(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	src, err := e.d.Sources.Create(ctx, e.owner.AccountID, a.ID, sources.NewSource{Kind: "website", URL: "https://93.184.215.14/"})
	if err != nil {
		t.Fatal(err)
	}
	path := "/agents/" + a.ID + "/sources/" + src.ID
	if err := e.st.StartSourceSync(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetSourceProgress(ctx, src.ID, 20); err != nil {
		t.Fatal(err)
	}
	page := e.get(path)
	agMustContain(t, "page while syncing", page.body,
		`<div id="source-facts" data-poll="`+path+`?part=facts" data-poll-status="source-status" data-poll-then="pages">`,
		`<div id="source-state" data-status="syncing" data-says="Syncing…, Pages: 20" data-active>`,
		`<section id="pages" aria-labelledby="pages-h" data-poll="`+path+`?part=pages">`, `<p id="source-status" class="sr-only" role="status">`,
		`id="source-sync" class="secondary" disabled>`)
	facts := e.get(path + "?part=facts")
	if facts.status != http.StatusOK || strings.Contains(facts.body, "<html") || strings.Contains(facts.body, `id="pages-h"`) {
		t.Fatalf("facts fragment: %d %s", facts.status, facts.body)
	}
	agMustContain(t, "facts while syncing", facts.body, `data-status="syncing"`, "Pages: 20", "data-active")

	// Ended: the facts say so and stop asking; the pages are there.
	pages := []domain.SourcePage{{URL: "https://93.184.215.14/a", Title: "Delivery", Text: "Parcels arrive in two days."}}
	if err := e.st.ReplaceSourcePages(ctx, src.ID, pages, store.SourceSync{At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	facts = e.get(path + "?part=facts")
	agMustContain(t, "facts when ready", facts.body, `data-status="ready" data-says="Ready, Pages: 1">`, `id="source-sync" class="secondary">`)
	agMustNotContain(t, "facts when ready", facts.body, "data-active")
	list := e.get(path + "?part=pages")
	if list.status != http.StatusOK || strings.Contains(list.body, "<html") || strings.Contains(list.body, `id="source-state"`) {
		t.Fatalf("pages fragment: %d %s", list.status, list.body)
	}
	agMustContain(t, "pages fragment", list.body, `<h2 id="pages-h">Pages taken in</h2>`, "<td><bdi>Delivery</bdi></td>")

	// Another account's source: not found, fragments too.
	_, stranger := e.account("stranger@example.com")
	for _, part := range []string{"", "?part=facts", "?part=pages"} {
		if p := e.send(stranger, httptest.NewRequest("GET", "http://example.com"+path+part, nil)); p.status != http.StatusNotFound {
			t.Errorf("a stranger's %s: %d", part, p.status)
		}
	}
}
