package crawler

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
)

// readRobots reads robots.txt at the start URL's origin (RFC 9309): a
// 4xx means there are no rules; a 5xx or no answer means the site cannot
// say what it allows, so nothing is crawled.
func (c *crawler) readRobots(ctx context.Context) error {
	u := c.site.origin
	u.Path = "/robots.txt"
	status, body, _, err := c.fetchRaw(ctx, &u, min(maxRobotsBytes, c.cfg.MaxBytes))
	switch {
	case err != nil && isRedirectRefusal(err):
		// robots.txt redirected off the site: there is no file for it.
		c.robots = allowAll
		return nil
	case err != nil:
		return startError(&u, err, c.cfg)
	case status >= 200 && status < 300:
		f := parseRobots(body)
		c.robots = f.forAgent(robotsAgent)
		c.sitemap = f.sitemaps
	case status >= 400 && status < 500:
		c.robots = allowAll
	default:
		return startErr(CodeRobotsStatus, fmt.Sprintf("the site answered %d for %s, so it cannot say what it allows crawlers to read; try again later", status, u.Redacted()),
			u.Redacted(), strconv.Itoa(status))
	}
	c.gate.delay = min(c.robots.delay, MaxCrawlDelay)
	return nil
}

// readSitemaps queues the pages of the sitemaps robots.txt names, or of
// /sitemap.xml, following sitemap index files. Sitemaps on other hosts are
// not read; a sitemap that fails is passed over.
func (c *crawler) readSitemaps(ctx context.Context) {
	var todo []*url.URL
	for _, s := range c.sitemap {
		if u, err := url.Parse(s); err == nil {
			todo = append(todo, u)
		}
	}
	if len(todo) == 0 {
		u := c.site.origin
		u.Path = "/sitemap.xml"
		todo = append(todo, &u)
	}
	read, urls := map[string]bool{}, 0
	for len(todo) > 0 && len(read) < maxSitemaps && ctx.Err() == nil {
		u := c.site.fetchURL(todo[0])
		todo = todo[1:]
		if u == nil || read[u.String()] || !c.robots.allowed(pathQuery(u)) {
			continue
		}
		read[u.String()] = true
		status, body, truncated, err := c.fetchRaw(ctx, u, c.cfg.MaxBytes)
		if err != nil || status != 200 || truncated {
			continue
		}
		pages, subs, err := parseSitemap(body, c.cfg.MaxBytes)
		if err != nil {
			continue
		}
		for _, p := range pages {
			if urls >= maxSitemapURLs {
				break
			}
			if pu, err := url.Parse(p); err == nil {
				urls++
				c.enqueue(pu)
			}
		}
		for _, s := range subs {
			if su, err := url.Parse(s); err == nil {
				todo = append(todo, su)
			}
		}
	}
}
