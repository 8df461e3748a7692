// Package crawler walks a website the way a polite search engine would and
// hands each page or document it finds to a callback: it reads robots.txt
// and the sitemaps, follows links on the same host, fetches a few pages at a
// time, and stops at a page count, a byte cap per response and a time cap
// for the whole crawl. It does not extract text (package extract does).
//
// Every request goes through the client it is given, which for tenants'
// sites is the outbound guard's (no private addresses).
package crawler

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Config is one crawl's settings. Zero values take the defaults.
type Config struct {
	Client      *http.Client  // the outbound guard's client; required
	UserAgent   string        // DefaultUserAgent; robots.txt rules for "Parley" apply, else "*"
	MaxPages    int           // documents handed to emit; required
	MaxBytes    int64         // per response: DefaultMaxBytes
	MaxDuration time.Duration // the whole crawl: DefaultMaxDuration
	PerHost     int           // requests at a time: DefaultPerHost
}

const (
	DefaultUserAgent   = "Parley/1.0 (+knowledge crawler; https://github.com/parley)"
	DefaultMaxBytes    = 10 << 20
	DefaultMaxDuration = 30 * time.Minute
	DefaultPerHost     = 2
)

// Document is one fetched page or file worth extracting: HTML, PDF or DOCX.
type Document struct {
	URL         string // canonical URL (after redirects and rel=canonical)
	ContentType string // as the server sent it
	Body        []byte
}

// Result counts what a crawl did.
type Result struct {
	Emitted  int // documents handed to emit
	Fetched  int // responses read
	Skipped  int // disallowed, duplicate, non-text, too large, failed
	TimedOut bool
}

// Crawl walks the site at start and calls emit for each new document, at
// most cfg.MaxPages times. An error from emit stops the crawl and is
// returned. A start URL that cannot be fetched at all is an error that
// says why in plain words; failures of single pages are counted in Skipped.
func Crawl(ctx context.Context, cfg Config, start string, emit func(Document) error) (Result, error) {
	return Result{}, errors.New("crawler: not built yet")
}
