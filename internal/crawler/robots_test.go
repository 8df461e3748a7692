package crawler

import (
	"testing"
	"time"
)

func TestRobotsRules(t *testing.T) {
	t.Parallel()
	f := parseRobots([]byte("Disallow: /before-any-agent\r\n" +
		"# comment\r\n" +
		"User-agent: *\r\n" +
		"Disallow: /private/\r\n" +
		"Crawl-delay: nonsense\r\n" +
		"Sitemap: https://example.com/sitemap.xml\r\n" +
		"\r\n" +
		"User-agent: Googlebot\r\n" +
		"User-agent: Parley/2.0\r\n" +
		"Disallow: /drafts   # trailing comment\n" +
		"Disallow: /*.pdf$\n" +
		"Disallow: /shop/*/cart\n" +
		"Allow: /drafts/public\n" +
		"Disallow: /caf%c3%a9\n" +
		"Crawl-delay: 2.5\n" +
		"user-agent: parley\n" +
		"disallow: /merged\n" +
		"Disallow:\n"))
	if len(f.sitemaps) != 1 || f.sitemaps[0] != "https://example.com/sitemap.xml" {
		t.Errorf("sitemaps: %q", f.sitemaps)
	}
	parley := f.forAgent("Parley")
	if parley.delay != 2500*time.Millisecond {
		t.Errorf("Parley's Crawl-delay: %v", parley.delay)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"/", true},
		{"/private/x", true}, // Parley has its own group: "*" does not apply
		{"/before-any-agent", true},
		{"/drafts", false},
		{"/drafts/x?y=1", false},
		{"/drafts/public/page", true}, // longer Allow wins
		{"/files/a.pdf", false},
		{"/files/a.pdf?x", true}, // $ anchors the end
		{"/shop/1/cart", false},
		{"/shop/cart", true},
		{"/café", false}, // escapes compared in one form
		{"/caf%C3%A9/menu", false},
		{"/merged/page", false}, // both Parley groups apply
		{"/robots.txt", true},
	}
	for _, tt := range tests {
		if got := parley.allowed(tt.path); got != tt.want {
			t.Errorf("Parley %s: %v, want %v", tt.path, got, tt.want)
		}
	}
	other := f.forAgent("SomeBot")
	if other.allowed("/private/x") || !other.allowed("/drafts") || other.delay != 0 {
		t.Errorf("the * group: private %v drafts %v delay %v", other.allowed("/private/x"), other.allowed("/drafts"), other.delay)
	}
	if other.blocksSite() {
		t.Error("the * group blocks the whole site")
	}
}

func TestRobotsEqualLengthAllowWins(t *testing.T) {
	t.Parallel()
	r := parseRobots([]byte("User-agent: *\nDisallow: /page\nAllow: /page\n")).forAgent("Parley")
	if !r.allowed("/page") {
		t.Error("a tie between Allow and Disallow went to Disallow")
	}
}

func TestRobotsBlocksSite(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		"User-agent: *\nDisallow: /\n":                               true,
		"User-agent: Parley\nDisallow: /\n":                          true,
		"User-agent: Parley\nDisallow: /\nAllow: /docs/\n":           false,
		"User-agent: Parley\nAllow: /\nUser-agent: *\nDisallow: /\n": false,
		"User-agent: OtherBot\nDisallow: /\n":                        false,
		"":                                                           false,
	} {
		if got := parseRobots([]byte(body)).forAgent("Parley").blocksSite(); got != want {
			t.Errorf("%q: blocksSite %v, want %v", body, got, want)
		}
	}
}

func TestMatchPattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/anything", true},
		{"/a", "/abc", true},
		{"/a$", "/abc", false},
		{"/a$", "/a", true},
		{"/*/b", "/x/y/b/c", true},
		{"*.php", "/x/index.php?q", true},
		{"/*.php$", "/x/index.php?q", false},
		{"/a*b*c", "/aXbYbZc", true},
		{"/a*b*c$", "/aXbYcZ", false},
		{"/abc", "/ab", false},
	}
	for _, tt := range tests {
		if got := matchPattern(tt.pattern, tt.path); got != tt.want {
			t.Errorf("matchPattern(%q, %q) = %v", tt.pattern, tt.path, got)
		}
	}
}
