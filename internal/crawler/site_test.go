package crawler

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/outbound"
)

// testSite is a real website on a loopback port, built by a test: a mux of
// handlers, with every request recorded.
type testSite struct {
	*httptest.Server
	mux *http.ServeMux

	mu     sync.Mutex
	hits   map[string]int // path?query → requests
	agents map[string]bool

	inflight, maxInflight atomic.Int64
	// lingering are paths whose handlers outlive the crawler's request
	// (they stream on, or wait, after it hung up): not counted in flight.
	lingering map[string]bool
}

func newTestSite(t testing.TB) *testSite {
	t.Helper()
	s := &testSite{mux: http.NewServeMux(), hits: map[string]int{}, agents: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.lingering[r.URL.Path] {
			n := s.inflight.Add(1)
			defer s.inflight.Add(-1)
			for {
				m := s.maxInflight.Load()
				if n <= m || s.maxInflight.CompareAndSwap(m, n) {
					break
				}
			}
		}
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		s.agents[r.UserAgent()] = true
		s.mu.Unlock()
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// page serves fixed HTML at a path.
func (s *testSite) page(path, html string) {
	pattern := path
	if strings.HasSuffix(path, "/") {
		pattern += "{$}" // the folder itself, not everything under it
	}
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	})
}

// file serves fixed bytes with a content type.
func (s *testSite) file(path, contentType string, body []byte) {
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	})
}

func (s *testSite) hitsOf(uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[uri]
}

func (s *testSite) totalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
}

// html wraps a body in a page; every page differs by its title.
func htmlPage(title, body string) string {
	return "<!doctype html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
}

func links(paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, p, p)
	}
	return b.String()
}

// pdfBytes and docxBytes are just enough of each format for the crawler,
// which only tells them apart (real fixtures are the extract package's).
var pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

func docxBytes(t *testing.T) []byte {
	return zipOf(t, "[Content_Types].xml", "word/document.xml")
}

// zipOf is a zip archive holding small files with these names.
func zipOf(t *testing.T, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "<xml>%s</xml>", name)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func urlset(base string, paths ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range paths {
		fmt.Fprintf(&b, "<url><loc>%s%s</loc></url>", base, p)
	}
	return b.String() + "</urlset>"
}

// privateOK is the guard as PARLEY_FETCH_ALLOW_PRIVATE=true builds it, for
// sites on loopback.
func privateOK() *http.Client { return outbound.New(outbound.Options{AllowPrivate: true}).Client() }

// collect crawls and returns the emitted documents by URL.
func collect(t *testing.T, cfg Config, start string) (map[string]Document, Result, error) {
	t.Helper()
	docs := map[string]Document{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Crawl(ctx, cfg, start, func(d Document) error {
		if _, dup := docs[d.URL]; dup {
			t.Errorf("%s emitted twice", d.URL)
		}
		docs[d.URL] = d
		return nil
	})
	if res.Emitted != len(docs) {
		t.Errorf("Result.Emitted %d, emit called for %d", res.Emitted, len(docs))
	}
	return docs, res, err
}

// sleeps records the Crawl-delay waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}
