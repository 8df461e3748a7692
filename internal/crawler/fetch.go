package crawler

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// kind is what a fetched body is, for extraction.
type kind int

const (
	kindNone kind = iota
	kindHTML
	kindPDF
	kindDOCX
)

const docxType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// accept tells servers what the crawler reads.
const accept = "text/html,application/xhtml+xml,application/pdf," + docxType + ";q=0.9,*/*;q=0.1"

// sniffBytes is how much of a body with a generic type is read to tell
// what it is.
const sniffBytes = 1024

// page is one response worth keeping.
type page struct {
	url         *url.URL // after redirects
	contentType string
	kind        kind
	body        []byte
}

// Why a URL gave nothing; startError words them for the owner.
type (
	statusError  struct{ code int }
	notTextError struct{ contentType string }
	offSiteError struct{ to string }
	robotsError  struct{ to string } // a redirect to a disallowed path
)

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.code) }
func (e *notTextError) Error() string {
	return "not a web page, PDF or DOCX (" + e.contentType + ")"
}
func (e *offSiteError) Error() string { return "redirect to another site: " + e.to }
func (e *robotsError) Error() string  { return "redirect to a path robots.txt disallows: " + e.to }

// gate spaces the starts of requests by the site's Crawl-delay. It holds
// its lock while it sleeps, so that waiting requests start one at a time.
type gate struct {
	mu    sync.Mutex
	delay time.Duration
	last  time.Time
	sleep func(context.Context, time.Duration) error
}

func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.delay > 0 && !g.last.IsZero() {
		if w := g.delay - time.Since(g.last); w > 0 {
			if err := g.sleep(ctx, w); err != nil {
				return err
			}
		}
	}
	g.last = time.Now()
	return ctx.Err()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// get makes one request, after the gate, within the per-request timeout;
// the caller reads the body before calling done.
func (c *crawler) get(ctx context.Context, u *url.URL) (res *http.Response, done func(), err error) {
	if err := c.gate.wait(ctx); err != nil {
		return nil, nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Accept", accept)
	res, err = c.client.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	c.fetched.Add(1)
	return res, func() { res.Body.Close(); cancel() }, nil
}

// fetchRaw reads robots.txt and sitemaps: the status and at most limit
// bytes (truncated reports whether there was more).
func (c *crawler) fetchRaw(ctx context.Context, u *url.URL, limit int64) (status int, body []byte, truncated bool, err error) {
	res, done, err := c.get(ctx, u)
	if err != nil {
		return 0, nil, false, err
	}
	defer done()
	body, err = io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return res.StatusCode, nil, false, err
	}
	if int64(len(body)) > limit {
		return res.StatusCode, body[:limit], true, nil
	}
	return res.StatusCode, body, false, nil
}

// fetchPage fetches a page or a document. Non-text content is left after
// its headers or its first kilobyte, and a body over MaxBytes is dropped
// whole: a cut PDF or DOCX cannot be read, and a cut page would lose an
// arbitrary part of its text.
func (c *crawler) fetchPage(ctx context.Context, u *url.URL) (*page, error) {
	res, done, err := c.get(ctx, u)
	if err != nil {
		return nil, err
	}
	defer done()
	if res.StatusCode < 200 || res.StatusCode > 299 || res.StatusCode == http.StatusNoContent {
		return nil, &statusError{res.StatusCode}
	}
	ct := res.Header.Get("Content-Type")
	k, sniff := classify(ct)
	if k == kindNone && !sniff {
		return nil, &notTextError{orUnknown(ct)}
	}
	max := c.cfg.MaxBytes
	if res.ContentLength > max {
		return nil, errTooLarge
	}
	var buf bytes.Buffer
	if res.ContentLength > 0 {
		buf.Grow(int(res.ContentLength))
	}
	if sniff {
		if _, err := io.CopyN(&buf, res.Body, sniffBytes); err != nil && err != io.EOF {
			return nil, err
		}
		if k = sniffHead(buf.Bytes()); k == kindNone {
			return nil, &notTextError{orUnknown(ct)}
		}
	}
	if _, err := io.Copy(&buf, io.LimitReader(res.Body, max+1-int64(buf.Len()))); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, errTooLarge
	}
	body := buf.Bytes()
	if sniff && k == kindDOCX && !isDOCX(body) {
		return nil, &notTextError{orUnknown(ct)}
	}
	return &page{url: res.Request.URL, contentType: ct, kind: k, body: body}, nil
}

func orUnknown(ct string) string {
	if ct == "" {
		return "no content type"
	}
	return ct
}

// classify tells a Content-Type's kind, or that the body must be looked
// at: servers send PDFs and DOCX files as octet-stream or zip, and pages
// without a type.
func classify(ct string) (k kind, sniff bool) {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(strings.ToLower(ct), ";")
		mt = strings.TrimSpace(mt)
	}
	switch mt {
	case "text/html", "application/xhtml+xml":
		return kindHTML, false
	case "application/pdf", "application/x-pdf", "application/acrobat":
		return kindPDF, false
	case docxType:
		return kindDOCX, false
	case "", "application/octet-stream", "binary/octet-stream", "application/binary",
		"application/download", "application/force-download", "application/x-download",
		"application/unknown", "application/zip", "application/x-zip", "application/x-zip-compressed",
		"application/msword", "text/plain":
		return kindNone, true
	}
	return kindNone, false
}

// sniffHead tells a kind from a body's first kilobyte; a zip is only a
// candidate DOCX until isDOCX has seen all of it.
func sniffHead(head []byte) kind {
	switch {
	case bytes.Contains(head, []byte("%PDF-")):
		return kindPDF
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return kindDOCX
	case strings.HasPrefix(http.DetectContentType(head), "text/html"):
		return kindHTML
	}
	return kindNone
}

// isDOCX says whether a zip holds a Word document (word/document.xml).
func isDOCX(body []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			return true
		}
	}
	return false
}
