package crawler

import (
	"net/url"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// One site whatever the scheme and www.: every URL of it is fetched in
// the form the start page ended on.
func TestSiteRule(t *testing.T) {
	t.Parallel()
	s := newSite(mustURL(t, "http://example.com/"))
	s.moveTo(mustURL(t, "https://www.example.com/welcome"))
	tests := []struct{ in, fetch string }{
		{"http://example.com/a#top", "https://www.example.com/a"},
		{"https://WWW.Example.com/a?utm_source=x&b=1&fbclid=y", "https://www.example.com/a?b=1"},
		{"http://example.com:80", "https://www.example.com/"},
		{"https://user:pw@example.com/x", "https://www.example.com/x"},
		{"https://example.com:8443/a", ""},
		{"https://shop.example.com/a", ""},
		{"https://example.org/a", ""},
		{"ftp://example.com/a", ""},
	}
	for _, tt := range tests {
		got := ""
		if u := s.fetchURL(mustURL(t, tt.in)); u != nil {
			got = u.String()
		}
		if got != tt.fetch {
			t.Errorf("fetchURL(%s) = %q, want %q", tt.in, got, tt.fetch)
		}
	}
}

func TestKey(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"https://x.test/", "https://x.test/index.html", "https://x.test/index.htm"},
		{"https://x.test/docs/", "https://x.test/docs/index.html"},
		{"https://x.test/p?a=1&b=2", "https://x.test/p?b=2&a=1", "https://x.test/p?b=2&utm_medium=mail&a=1&"},
	}
	s := newSite(mustURL(t, "https://x.test/"))
	for _, group := range same {
		k0 := key(s.fetchURL(mustURL(t, group[0])))
		for _, u := range group[1:] {
			if k := key(s.fetchURL(mustURL(t, u))); k != k0 {
				t.Errorf("key(%s) = %s, want %s", u, k, k0)
			}
		}
	}
	different := []string{"https://x.test/docs", "https://x.test/docs/", "https://x.test/p?a=2&b=1", "https://x.test/index.php"}
	keys := map[string]string{}
	for _, u := range different {
		k := key(s.fetchURL(mustURL(t, u)))
		if prev, dup := keys[k]; dup {
			t.Errorf("%s and %s share a key", u, prev)
		}
		keys[k] = u
	}
}

func TestScanHTML(t *testing.T) {
	t.Parallel()
	base := mustURL(t, "https://x.test/dir/page")
	info := scanHTML([]byte(`<html><head><base href="/root/"><link rel="Canonical" href="https://x.test/canon">`+
		`<meta name="robots" content="NOINDEX"></head><body><a href="a">a</a><a href="#frag">f</a>`+
		`<a href="mailto:x@y">m</a><a href="javascript:go()">j</a><a href="//other.test/b">b</a>`+
		`<iframe src="/frame"></iframe><area href="https://x.test/area"></body></html>`), base)
	var got []string
	for _, l := range info.links {
		got = append(got, l.String())
	}
	want := []string{"https://x.test/root/a", "https://other.test/b", "https://x.test/frame", "https://x.test/area"}
	if len(got) != len(want) {
		t.Fatalf("links %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("link %d: %s, want %s", i, got[i], want[i])
		}
	}
	if info.canonical == nil || info.canonical.String() != "https://x.test/canon" {
		t.Errorf("canonical %v", info.canonical)
	}
	if !info.noindex || info.nofollow {
		t.Errorf("noindex %v nofollow %v", info.noindex, info.nofollow)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ct    string
		kind  kind
		sniff bool
	}{
		{"text/html; charset=utf-8", kindHTML, false},
		{"TEXT/HTML", kindHTML, false},
		{"application/pdf", kindPDF, false},
		{docxType, kindDOCX, false},
		{"application/octet-stream", kindNone, true},
		{"", kindNone, true},
		{"image/png", kindNone, false},
		{"video/mp4", kindNone, false},
		{"application/x-rar-compressed", kindNone, false},
	}
	for _, tt := range tests {
		if k, sniff := classify(tt.ct); k != tt.kind || sniff != tt.sniff {
			t.Errorf("classify(%q) = %v, %v", tt.ct, k, sniff)
		}
	}
	if sniffHead([]byte("<!DOCTYPE html><html>")) != kindHTML || sniffHead(pdfBytes) != kindPDF || sniffHead([]byte("GIF89a")) != kindNone {
		t.Error("sniffHead")
	}
}

func TestMetaRobots(t *testing.T) {
	t.Parallel()
	base := mustURL(t, "https://x.test/")
	for content, want := range map[string][2]bool{
		"noindex":             {true, false},
		"NOINDEX,NOFOLLOW":    {true, true},
		"none":                {true, true},
		"index, follow":       {false, false},
		"noarchive, nofollow": {false, true},
		"nonexistent-thing":   {false, false},
	} {
		info := scanHTML([]byte(`<meta name="robots" content="`+content+`">`), base)
		if info.noindex != want[0] || info.nofollow != want[1] {
			t.Errorf("%q: noindex %v nofollow %v", content, info.noindex, info.nofollow)
		}
	}
}
