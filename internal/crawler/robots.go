package crawler

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// A small robots.txt parser after RFC 9309, with the two extensions every
// crawler reads (Crawl-delay, Sitemap). github.com/temoto/robotstxt, the
// usual Go choice, was not taken: its last release (v1.1.2) is from 2021,
// and it rejects a whole file for one misplaced line (a Disallow before
// any User-agent, a Crawl-delay that is not a number), where the RFC says
// a crawler must use every rule it can parse; an owner's typo would then
// leave us choosing between ignoring all their rules and obeying none.

// maxRobotsBytes is how much of a robots.txt is read: RFC 9309 asks
// crawlers to parse at least 500 KiB.
const maxRobotsBytes = 512 << 10

// robotsFile is a parsed robots.txt.
type robotsFile struct {
	groups   []robotsGroup
	sitemaps []string
}

type robotsGroup struct {
	agents []string // lower-case product tokens, "*" for any
	rules  []robotsRule
	delay  time.Duration
}

type robotsRule struct {
	allow   bool
	pattern string // normalised (see normPath); may hold * and a final $
}

// robotsRules are the rules that apply to one crawler.
type robotsRules struct {
	rules []robotsRule
	delay time.Duration
}

// allowAll is what a missing robots.txt (any 4xx) means.
var allowAll = robotsRules{}

func parseRobots(body []byte) *robotsFile {
	f := &robotsFile{}
	var cur *robotsGroup
	inAgents := false // the previous member line was a User-agent line
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue // not a rule: ignored, as the RFC asks
		}
		k := strings.ToLower(string(bytes.TrimSpace(key)))
		v := string(bytes.TrimSpace(value))
		switch k {
		case "user-agent", "useragent", "user agent":
			if !inAgents || cur == nil {
				f.groups = append(f.groups, robotsGroup{})
				cur = &f.groups[len(f.groups)-1]
			}
			cur.agents = append(cur.agents, agentToken(v))
			inAgents = true
		case "allow", "disallow":
			inAgents = false
			if cur == nil || v == "" {
				continue // outside any group, or "Disallow:" (nothing disallowed)
			}
			cur.rules = append(cur.rules, robotsRule{allow: k == "allow", pattern: normPath(v)})
		case "crawl-delay":
			inAgents = false
			if cur == nil {
				continue
			}
			if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && s < 1e6 {
				cur.delay = time.Duration(s * float64(time.Second))
			}
		case "sitemap":
			// Sitemap lines belong to no group.
			if v != "" {
				f.sitemaps = append(f.sitemaps, v)
			}
		}
	}
	return f
}

// agentToken is the product token of a User-agent line, lower-cased:
// "Parley/1.0" and "parley" both name Parley.
func agentToken(v string) string {
	v = strings.ToLower(v)
	if v == "*" {
		return v
	}
	end := strings.IndexFunc(v, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_'
	})
	if end >= 0 {
		v = v[:end]
	}
	return v
}

// forAgent returns the rules for the crawler named token: every group that
// names it, merged (the RFC merges them), else every "*" group, else none.
func (f *robotsFile) forAgent(token string) robotsRules {
	token = agentToken(token)
	pick := func(name string) (robotsRules, bool) {
		var r robotsRules
		found := false
		for _, g := range f.groups {
			for _, a := range g.agents {
				if a == name {
					found = true
					r.rules = append(r.rules, g.rules...)
					r.delay = max(r.delay, g.delay)
					break
				}
			}
		}
		return r, found
	}
	if r, ok := pick(token); ok {
		return r
	}
	r, _ := pick("*")
	return r
}

// allowed says whether a URL path (escaped, with its query) may be
// fetched: the rule with the longest pattern that matches decides, Allow
// winning a tie; no matching rule allows.
func (r robotsRules) allowed(pathQuery string) bool {
	if pathQuery == "/robots.txt" {
		return true
	}
	p := normPath(pathQuery)
	best, allow := -1, true
	for _, rule := range r.rules {
		if !matchPattern(rule.pattern, p) {
			continue
		}
		if n := len(rule.pattern); n > best || (n == best && rule.allow) {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// blocksSite says whether the rules leave nothing on the site to fetch:
// "/" is disallowed and no Allow rule opens anything.
func (r robotsRules) blocksSite() bool {
	if r.allowed("/") {
		return false
	}
	for _, rule := range r.rules {
		if rule.allow {
			return false
		}
	}
	return true
}

// normPath makes a rule and a URL path comparable: percent escapes in
// upper case, bytes outside printable ASCII escaped.
func normPath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			i += 2
		case c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// matchPattern matches a path against a rule: the rule is a prefix, "*"
// matches any run of characters and a final "$" anchors the end.
func matchPattern(pattern, path string) bool {
	if p, ok := strings.CutSuffix(pattern, "$"); ok {
		pattern = p
	} else {
		pattern += "*"
	}
	// Glob matching with one backtracking point: the last "*" seen.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(path) {
		switch {
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(pattern) && pattern[pi] == path[si]:
			pi++
			si++
		case star >= 0:
			mark++
			pi, si = star+1, mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}
