package crawler

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseSitemap(t *testing.T) {
	t.Parallel()
	pages, subs, err := parseSitemap([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<url><loc> https://x.test/a </loc><lastmod>2026-01-01</lastmod></url><url><loc>https://x.test/b?c=1&amp;d=2</loc></url>`+
		`<url><loc></loc></url><url><loc>https://x.test/broken`), 1<<20)
	if err != nil || !slices.Equal(pages, []string{"https://x.test/a", "https://x.test/b?c=1&d=2"}) || len(subs) != 0 {
		t.Errorf("urlset: %q %q %v", pages, subs, err)
	}
	_, subs, _ = parseSitemap(gzipped(t, `<sitemapindex><sitemap><loc>https://x.test/s1.xml</loc></sitemap></sitemapindex>`), 1<<20)
	if !slices.Equal(subs, []string{"https://x.test/s1.xml"}) {
		t.Errorf("gzip index: %q", subs)
	}
	// A small gzip that inflates past the cap is refused, not inflated.
	bomb := gzipped(t, "<urlset>"+strings.Repeat(" ", 2<<20)+"</urlset>")
	if _, _, err := parseSitemap(bomb, 1<<20); !errors.Is(err, errTooLarge) {
		t.Errorf("gzip over the cap (%d bytes compressed): %v", len(bomb), err)
	}
}
