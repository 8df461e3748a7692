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
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
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

	// RequestTimeout bounds one request, body included, so that one slow
	// page cannot eat the crawl: DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Sleep waits out the Crawl-delay between requests; nil sleeps for
	// real. Tests pass one that records the waits instead.
	Sleep func(ctx context.Context, d time.Duration) error
}

const (
	DefaultUserAgent      = "Parley/1.0 (+knowledge crawler; https://github.com/parley)"
	DefaultMaxBytes       = 10 << 20
	DefaultMaxDuration    = 30 * time.Minute
	DefaultPerHost        = 2
	DefaultRequestTimeout = 30 * time.Second

	// MaxCrawlDelay caps a site's Crawl-delay: beyond a minute between
	// requests a crawl of 200 pages would last hours, and the owner who
	// asked for it is better served by what MaxDuration lets through.
	MaxCrawlDelay = time.Minute

	// robotsAgent is the name robots.txt groups are matched against.
	robotsAgent = "Parley"
	// maxQueue bounds the URLs waiting to be fetched (sites with endless
	// calendars and filters).
	maxQueue = 50_000
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

var errMaxDuration = errors.New("the crawl's time limit ran out")

// Crawl walks the site at start and calls emit for each new document, at
// most cfg.MaxPages times. An error from emit stops the crawl and is
// returned. A start URL that cannot be fetched at all is an error that
// says why in plain words; failures of single pages are counted in Skipped.
//
// emit is called from Crawl's own goroutine, one document at a time, and
// may keep the Body. When MaxDuration runs out, Crawl returns what it found
// with Result.TimedOut and no error.
func Crawl(ctx context.Context, cfg Config, start string, emit func(Document) error) (Result, error) {
	if cfg.Client == nil {
		return Result{}, errors.New("crawler: no client")
	}
	if cfg.MaxPages <= 0 {
		return Result{}, errors.New("crawler: MaxPages must be positive")
	}
	cfg = withDefaults(cfg)
	u, err := url.Parse(strings.TrimSpace(start))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return Result{}, startErr(CodeNotURL, fmt.Sprintf("%q is not a web address: use one that starts with http:// or https://", start), start)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.MaxDuration, errMaxDuration)
	defer cancel()

	c := &crawler{
		cfg:    cfg,
		site:   newSite(u),
		seen:   map[string]bool{},
		done:   map[string]bool{},
		hashes: map[[32]byte]bool{},
		emit:   emit,
	}
	c.gate.sleep = cfg.Sleep
	client := *cfg.Client
	client.CheckRedirect = c.checkRedirect(cfg.Client.CheckRedirect)
	c.client = &client

	err = c.run(ctx, u)
	res := Result{Emitted: c.emitted, Fetched: int(c.fetched.Load()), Skipped: c.skipped}
	if context.Cause(ctx) == errMaxDuration {
		res.TimedOut = true
		if errors.Is(err, context.DeadlineExceeded) { // robots.txt or the start page
			return res, startErr(CodeTimeLimit, fmt.Sprintf("the crawl's time limit (%v) ran out before %s answered", cfg.MaxDuration, u.Redacted()),
				cfg.MaxDuration.String(), u.Redacted())
		}
	}
	return res, err
}

func withDefaults(cfg Config) Config {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxDuration <= 0 {
		cfg.MaxDuration = DefaultMaxDuration
	}
	if cfg.PerHost <= 0 {
		cfg.PerHost = DefaultPerHost
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	return cfg
}

// crawler is one crawl's state. Its maps and counters belong to Crawl's
// goroutine; the fetches running beside it touch only fetched, the gate
// and (read-only once the crawl runs) site and robots.
type crawler struct {
	cfg     Config
	client  *http.Client
	site    *site
	robots  robotsRules
	sitemap []string // the sitemaps robots.txt names
	gate    gate
	fetched atomic.Int64

	queue   []job
	seen    map[string]bool // keys queued or taken
	done    map[string]bool // keys whose content was taken
	hashes  map[[32]byte]bool
	emit    func(Document) error
	emitted int
	skipped int
}

type job struct {
	url *url.URL
	key string
}

type outcome struct {
	job  job
	page *page
	err  error
}

// checkRedirect follows a redirect only on the site and where robots.txt
// allows, then applies the guard's own rules (schemes, hop count).
func (c *crawler) checkRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !c.site.contains(req.URL) {
			return &offSiteError{to: req.URL.Redacted()}
		}
		if !c.robots.allowed(pathQuery(req.URL)) {
			return &robotsError{to: req.URL.Redacted()}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

func pathQuery(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func (c *crawler) run(ctx context.Context, start *url.URL) error {
	if err := c.readRobots(ctx); err != nil {
		return err
	}
	su := c.site.fetchURL(start)
	if !c.robots.allowed(pathQuery(su)) {
		if c.robots.blocksSite() {
			return startErr(CodeRobotsSite, "robots.txt disallows the whole site for "+robotsAgent)
		}
		return startErr(CodeRobotsStart, fmt.Sprintf("robots.txt disallows %s for %s", su.Redacted(), robotsAgent), su.Redacted())
	}
	first := job{url: su, key: key(su)}
	c.seen[first.key] = true
	p, err := c.fetchPage(ctx, su)
	if err != nil {
		return startError(su, err, c.cfg)
	}
	// The site answers on the scheme and host its start page ended on.
	c.site.moveTo(p.url)
	c.readSitemaps(ctx)
	if err := c.take(outcome{job: first, page: p}); err != nil {
		return err
	}
	return c.loop(ctx)
}

// loop fetches the queue, PerHost at a time, until it is empty, MaxPages
// documents are out, emit fails or time runs out.
func (c *crawler) loop(ctx context.Context) error {
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	results := make(chan outcome, c.cfg.PerHost)
	inflight, head := 0, 0
	var failed error
	for {
		stopping := failed != nil || ctx.Err() != nil || c.emitted >= c.cfg.MaxPages
		if stopping {
			stop() // in-flight fetches end now; their results are drained
		}
		for !stopping && inflight < c.cfg.PerHost && c.emitted+inflight < c.cfg.MaxPages && head < len(c.queue) {
			j := c.queue[head]
			c.queue[head] = job{}
			head++
			if c.done[j.key] {
				continue // taken meanwhile under another URL (a redirect, a canonical link)
			}
			inflight++
			go func() {
				p, err := c.fetchPage(fctx, j.url)
				results <- outcome{job: j, page: p, err: err}
			}()
		}
		if inflight == 0 {
			break
		}
		o := <-results
		inflight--
		if failed != nil || ctx.Err() != nil || c.emitted >= c.cfg.MaxPages {
			continue
		}
		failed = c.take(o)
	}
	if failed != nil {
		return failed
	}
	if context.Cause(ctx) == errMaxDuration {
		return nil // what was found is the result
	}
	return ctx.Err()
}

// take handles a fetched URL: dedupes it, queues its links and emits it.
func (c *crawler) take(o outcome) error {
	if o.err != nil {
		c.skipped++
		return nil
	}
	p := o.page
	final := c.site.fetchURL(p.url)
	if final == nil {
		c.skipped++ // cannot happen: redirects stay on the site
		return nil
	}
	fk := key(final)
	if fk != o.job.key {
		if c.done[fk] {
			c.skipped++ // redirected to a page already taken
			return nil
		}
		c.seen[fk] = true
	}
	c.done[fk] = true

	var info pageInfo
	if p.kind == kindHTML {
		info = scanHTML(p.body, p.url)
	}
	doc := final
	dup := false
	if info.canonical != nil {
		if cu := c.site.fetchURL(info.canonical); cu != nil {
			if ck := key(cu); ck != fk {
				dup = c.done[ck]
				c.done[ck], c.seen[ck] = true, true
				doc = cu
			}
		}
	}
	sum := sha256.Sum256(p.body)
	sameBytes := c.hashes[sum]
	c.hashes[sum] = true
	if !info.nofollow && !sameBytes {
		for _, l := range info.links {
			c.enqueue(l)
		}
	}
	if dup || sameBytes || info.noindex {
		c.skipped++
		return nil
	}
	c.emitted++
	return c.emit(Document{URL: doc.String(), ContentType: p.contentType, Body: p.body})
}

// enqueue queues a link when it is on the site, new, possibly text and
// allowed by robots.txt.
func (c *crawler) enqueue(u *url.URL) {
	fu := c.site.fetchURL(u)
	if fu == nil {
		return // another site: never followed
	}
	k := key(fu)
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	if notText(fu) || !c.robots.allowed(pathQuery(fu)) {
		c.skipped++
		return
	}
	if len(c.queue) < maxQueue {
		c.queue = append(c.queue, job{url: fu, key: k})
	}
}
