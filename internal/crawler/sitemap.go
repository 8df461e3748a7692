package crawler

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

const (
	// maxSitemaps bounds the sitemap files read (an index names others).
	maxSitemaps = 50
	// maxSitemapURLs bounds the URLs taken from them: one sitemap file may
	// list 50,000, far more than a crawl fetches.
	maxSitemapURLs = 50_000
)

var errTooLarge = errors.New("too large")

// parseSitemap reads a sitemap (<urlset>) or a sitemap index
// (<sitemapindex>), gzip-compressed or not, and returns the page URLs and
// the sitemap URLs it lists, as written. Broken XML ends the reading, and
// what came before it is kept.
func parseSitemap(body []byte, maxBytes int64) (pages, sitemaps []string, err error) {
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		// A small gzip can inflate to gigabytes: the cap holds after it too.
		body, err = io.ReadAll(io.LimitReader(zr, maxBytes+1))
		if err != nil {
			return nil, nil, err
		}
		if int64(len(body)) > maxBytes {
			return nil, nil, errTooLarge
		}
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	var stack []string // local names of the open elements
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			break // io.EOF or broken XML: keep what was read
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, strings.ToLower(t.Name.Local))
			text.Reset()
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			n := len(stack)
			if n >= 2 && stack[n-1] == "loc" {
				loc := strings.TrimSpace(text.String())
				switch {
				case loc == "":
				case stack[n-2] == "url":
					pages = append(pages, loc)
				case stack[n-2] == "sitemap":
					sitemaps = append(sitemaps, loc)
				}
			}
			if n > 0 {
				stack = stack[:n-1]
			}
			text.Reset()
		}
	}
	return pages, sitemaps, nil
}
