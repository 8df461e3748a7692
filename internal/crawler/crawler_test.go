package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// One site with everything a real one throws at a crawler; the test
// checks what came out, and what was never asked for.
func TestCrawlSite(t *testing.T) {
	t.Parallel()
	s := newTestSite(t)
	other := newTestSite(t) // another host:port: never to be visited
	other.page("/", htmlPage("Elsewhere", "another site"))
	other.page("/external", htmlPage("External", "another site"))
	base := s.URL
	s.lingering = map[string]bool{"/media/clip": true, "/slow": true}

	// Parley's own group applies: "*" would block everything.
	s.file("/robots.txt", "text/plain", []byte("User-agent: *\nDisallow: /\n\n"+
		"User-agent: Parley\nDisallow: /private/\nCrawl-delay: 20\n\n"+
		"Sitemap: "+base+"/sitemap_index.xml\n"))
	s.file("/sitemap_index.xml", "application/xml", []byte(`<?xml version="1.0"?>`+
		`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<sitemap><loc>`+base+`/sitemap-pages.xml</loc></sitemap>`+
		`<sitemap><loc>`+base+`/sitemap-more.xml.gz</loc></sitemap>`+
		`<sitemap><loc>`+other.URL+`/sitemap.xml</loc></sitemap>`+
		`</sitemapindex>`))
	s.file("/sitemap-pages.xml", "application/xml", []byte(urlset(base, "/about", "/private/secret", "/?utm_source=newsletter", "/docs/")))
	s.file("/sitemap-more.xml.gz", "application/x-gzip", gzipped(t, urlset(base, "/guides")))

	s.page("/", htmlPage("Home", links(
		"/about", "/products?b=2&a=1", "/products?a=1&b=2&utm_campaign=z#top", "/index.html", "/docs/index.html",
		"/files/guide.pdf", "/files/manual", "/files/brochure.docx", "/img/logo.png", "/media/clip", "/files/archive",
		"/missing", "/huge", "/huge-chunked", "/slow", "/old", "/away", "/private/hidden", "/canon-variant", "/copy",
		"/noindex", "mailto:owner@example.com", "javascript:void(0)", other.URL+"/external",
	)))
	s.page("/about", htmlPage("About", links("/deep")))
	s.page("/deep", htmlPage("Deep", "reachable only through a link on /about"))
	s.page("/docs/", htmlPage("Docs", "the docs"))
	s.page("/guides", htmlPage("Guides", "from the gzip sitemap"))
	s.page("/products", htmlPage("Products", "one page whatever the query's order"))
	s.page("/new", htmlPage("New", "where /old went"))
	s.page("/noindex", `<html><head><meta name="robots" content="noindex"></head><body>`+links("/from-noindex")+`</body></html>`)
	s.page("/from-noindex", htmlPage("From noindex", "links of a noindex page are followed"))
	s.page("/canon-variant", `<html><head><link rel="canonical" href="/about"></head><body>About, printed</body></html>`)
	s.page("/copy", htmlPage("About", links("/deep"))) // byte-identical to /about
	s.page("/private/hidden", htmlPage("Hidden", "disallowed"))
	s.page("/private/secret", htmlPage("Secret", "disallowed"))
	s.mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusMovedPermanently)
	})
	s.mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/", http.StatusFound)
	})
	docx := docxBytes(t)
	s.file("/files/guide.pdf", "application/pdf", pdfBytes)
	s.file("/files/brochure.docx", docxType, zipOf(t, "[Content_Types].xml", "word/document.xml", "word/styles.xml"))
	s.file("/files/manual", "application/octet-stream", docx)               // sniffed: a DOCX
	s.file("/files/archive", "application/octet-stream", zipOf(t, "a.txt")) // sniffed: a zip, not a DOCX
	s.file("/img/logo.png", "image/png", []byte("\x89PNG"))
	const maxBytes = 64 << 10
	big := htmlPage("Huge", strings.Repeat("x", maxBytes))
	s.mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		fmt.Fprint(w, big)
	})
	s.mux.HandleFunc("/huge-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for i := 0; i < 4; i++ {
			fmt.Fprint(w, big[:len(big)/2])
			w.(http.Flusher).Flush()
		}
	})
	mediaWritten := make(chan int64, 1)
	s.mux.HandleFunc("/media/clip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		chunk := make([]byte, 64<<10)
		var n int64
		for i := 0; i < 1024; i++ { // 64 MiB, if anyone read it all
			k, err := w.Write(chunk)
			n += int64(k)
			if err != nil {
				break
			}
		}
		mediaWritten <- n
	})
	s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers never; the crawler gives up first
	})

	var waits sleeps
	cfg := Config{
		Client:         privateOK(),
		MaxPages:       100,
		MaxBytes:       maxBytes,
		PerHost:        2,
		RequestTimeout: 2 * time.Second,
		Sleep:          waits.sleep,
	}
	docs, res, err := collect(t, cfg, base+"/")
	if err != nil {
		t.Fatal(err)
	}

	var got []string
	for u := range docs {
		got = append(got, strings.TrimPrefix(u, base))
	}
	sort.Strings(got)
	want := []string{"/", "/about", "/deep", "/docs/", "/files/brochure.docx", "/files/guide.pdf", "/files/manual",
		"/from-noindex", "/guides", "/new", "/products?b=2&a=1"}
	if !slices.Equal(got, want) {
		t.Errorf("emitted\n%q\nwant\n%q", got, want)
	}
	if d := docs[base+"/files/manual"]; !equalBytes(d.Body, docx) || d.ContentType != "application/octet-stream" {
		t.Errorf("the sniffed DOCX: %q, %d bytes", d.ContentType, len(d.Body))
	}
	if d := docs[base+"/files/guide.pdf"]; !equalBytes(d.Body, pdfBytes) || d.ContentType != "application/pdf" {
		t.Errorf("the PDF: %q, %d bytes", d.ContentType, len(d.Body))
	}
	if d := docs[base+"/about"]; !strings.Contains(string(d.Body), "<title>About</title>") {
		t.Errorf("/about's body: %q", d.Body)
	}

	// Never asked for: disallowed, duplicates by URL, files by extension.
	for _, uri := range []string{"/private/hidden", "/private/secret", "/index.html", "/docs/index.html",
		"/img/logo.png", "/?utm_source=newsletter"} {
		if n := s.hitsOf(uri); n != 0 {
			t.Errorf("%s was requested %d times", uri, n)
		}
	}
	for _, uri := range []string{"/", "/products?b=2&a=1", "/about", "/old", "/new", "/robots.txt"} {
		if n := s.hitsOf(uri); n != 1 {
			t.Errorf("%s was requested %d times, want once", uri, n)
		}
	}
	if n := s.hitsOf("/products?a=1&b=2"); n != 0 {
		t.Errorf("a query-order variant was requested %d times", n)
	}
	if n := other.totalHits(); n != 0 {
		t.Errorf("the other site saw %d requests (an external link, an off-site redirect or sitemap was followed)", n)
	}
	if n := <-mediaWritten; n >= 64<<20 {
		t.Errorf("the video was read whole (%d bytes)", n)
	}
	if len(s.agents) != 1 || !s.agents[DefaultUserAgent] {
		t.Errorf("User-Agents sent: %v", s.agents)
	}
	if m := s.maxInflight.Load(); m > 2 {
		t.Errorf("%d requests at once, PerHost is 2", m)
	}

	// Crawl-delay: every request after robots.txt waited for it (the
	// gate measures from the previous start, so a little less than 20s).
	w := waits.all()
	if len(w) < len(want) {
		t.Errorf("%d waits for %d documents", len(w), len(want))
	}
	for _, d := range w {
		if d <= 10*time.Second || d > 20*time.Second {
			t.Errorf("waited %v, Crawl-delay is 20s", d)
		}
	}

	// Skipped: 2 disallowed, the png, the clip, the zip, the 404, 2 huge,
	// the slow one, the off-site redirect, the canonical copy, the byte
	// copy, the noindex page.
	if res.Skipped != 13 {
		t.Errorf("Skipped %d, want 13", res.Skipped)
	}
	if res.TimedOut {
		t.Error("TimedOut")
	}
}

func equalBytes(a, b []byte) bool { return string(a) == string(b) }

// MaxPages is a cap on documents handed out, and few more are fetched.
func TestMaxPages(t *testing.T) {
	t.Parallel()
	s := newTestSite(t)
	var all []string
	for i := range 30 {
		p := fmt.Sprintf("/p/%d", i)
		all = append(all, p)
		s.page(p, htmlPage(p, links(all...)))
	}
	s.page("/", htmlPage("Home", links(all...)))
	docs, res, err := collect(t, Config{Client: privateOK(), MaxPages: 5, PerHost: 3}, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5 || res.Emitted != 5 {
		t.Errorf("%d documents, want 5", len(docs))
	}
	// robots.txt, sitemap.xml, then at most the pages in flight when the
	// fifth came back.
	if n := s.totalHits(); n > 2+5+3 {
		t.Errorf("%d requests for 5 documents", n)
	}
}

// Never more than PerHost requests at once, and the crawler does use
// them: each page waits until PerHost requests are in, so a crawler that
// fetched one at a time would show a maximum of 1.
func TestPerHost(t *testing.T) {
	t.Parallel()
	const perHost = 3
	s := newTestSite(t)
	full := make(chan struct{})
	var once sync.Once
	var all []string
	for i := range 24 {
		all = append(all, fmt.Sprintf("/p/%d", i))
	}
	s.page("/", htmlPage("Home", links(all...)))
	s.mux.HandleFunc("/p/", func(w http.ResponseWriter, r *http.Request) {
		if s.inflight.Load() >= perHost {
			once.Do(func() { close(full) })
		}
		select {
		case <-full:
		case <-time.After(3 * time.Second): // a crawler that never fills PerHost fails, late
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, htmlPage(r.URL.Path, ""))
	})
	docs, _, err := collect(t, Config{Client: privateOK(), MaxPages: 100, PerHost: perHost}, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 25 {
		t.Errorf("%d documents, want 25", len(docs))
	}
	if m := s.maxInflight.Load(); m != perHost {
		t.Errorf("at most %d requests at once, want exactly PerHost (%d)", m, perHost)
	}
}

// When MaxDuration runs out, Crawl returns what it found, without error.
func TestMaxDuration(t *testing.T) {
	t.Parallel()
	s := newTestSite(t)
	s.page("/", htmlPage("Home", links("/slow", "/slow2")))
	s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	docs, res, err := collect(t, Config{Client: privateOK(), MaxPages: 10, MaxDuration: 2 * time.Second}, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || len(docs) != 1 {
		t.Errorf("TimedOut %v, %d documents; want true and the home page", res.TimedOut, len(docs))
	}
}

// An error from emit stops the crawl and comes back.
func TestEmitErrorStops(t *testing.T) {
	t.Parallel()
	s := newTestSite(t)
	var all []string
	for i := range 10 {
		all = append(all, fmt.Sprintf("/p/%d", i))
		s.page(all[i], htmlPage(all[i], ""))
	}
	s.page("/", htmlPage("Home", links(all...)))
	stop := errors.New("store is full")
	calls := 0
	_, err := Crawl(context.Background(), Config{Client: privateOK(), MaxPages: 100}, s.URL+"/", func(Document) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

// A Crawl-delay beyond MaxCrawlDelay is cut to it.
func TestCrawlDelayCapped(t *testing.T) {
	t.Parallel()
	s := newTestSite(t)
	s.file("/robots.txt", "text/plain", []byte("User-agent: *\nCrawl-delay: 86400\n"))
	s.page("/", htmlPage("Home", links("/a")))
	s.page("/a", htmlPage("A", ""))
	var waits sleeps
	_, _, err := collect(t, Config{Client: privateOK(), MaxPages: 10, Sleep: waits.sleep}, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	w := waits.all()
	if len(w) == 0 {
		t.Fatal("no wait")
	}
	for _, d := range w {
		if d > MaxCrawlDelay || d < MaxCrawlDelay/2 {
			t.Errorf("waited %v", d)
		}
	}
}
