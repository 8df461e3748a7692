package crawler

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// pageInfo is what the crawler needs from an HTML page: where it links,
// which URL it calls canonical, and whether it asks robots to leave it out
// (<meta name="robots" content="noindex, nofollow">).
type pageInfo struct {
	links     []*url.URL
	canonical *url.URL
	noindex   bool
	nofollow  bool
}

// scanHTML reads a page with the tokenizer (no tree: the crawler needs a
// few attributes, not the document) and resolves links against base, or
// against the page's own <base href>.
func scanHTML(body []byte, base *url.URL) pageInfo {
	var info pageInfo
	var hrefs []string
	canonical := ""
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		attrs := readAttrs(z)
		switch string(name) {
		case "a", "area":
			// rel="nofollow" is a hint about ranking, not a request to
			// stay out: the pages are the owner's own, and they are followed.
			hrefs = append(hrefs, attrs["href"])
		case "iframe", "frame":
			hrefs = append(hrefs, attrs["src"])
		case "base":
			if h := attrs["href"]; h != "" {
				if b, err := base.Parse(strings.TrimSpace(h)); err == nil {
					base = b
				}
			}
		case "link":
			if hasToken(attrs["rel"], "canonical") && canonical == "" {
				canonical = attrs["href"]
			}
		case "meta":
			switch strings.ToLower(attrs["name"]) {
			case "robots", "parley":
				for _, d := range strings.FieldsFunc(strings.ToLower(attrs["content"]), func(r rune) bool { return r == ',' || r == ' ' }) {
					info.noindex = info.noindex || d == "noindex" || d == "none"
					info.nofollow = info.nofollow || d == "nofollow" || d == "none"
				}
			}
		}
	}
	for _, h := range hrefs {
		if u := resolve(base, h); u != nil {
			info.links = append(info.links, u)
		}
	}
	if canonical != "" {
		info.canonical = resolve(base, canonical)
	}
	return info
}

func readAttrs(z *html.Tokenizer) map[string]string {
	attrs := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		if _, seen := attrs[string(k)]; !seen {
			attrs[string(k)] = string(v)
		}
		if !more {
			return attrs
		}
	}
}

// hasToken says whether a space-separated attribute (rel) holds tok.
func hasToken(attr, tok string) bool {
	for _, f := range strings.Fields(attr) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// resolve turns an href into an absolute http(s) URL, or nil.
func resolve(base *url.URL, href string) *url.URL {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return nil
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil // mailto:, javascript:, tel:, data: and broken hrefs
	}
	return u
}
