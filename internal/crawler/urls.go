package crawler

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// maxURLLength drops the endless URLs of calendars and session traps.
const maxURLLength = 2048

// site is the website being crawled: one host, whatever its scheme and
// whether or not it starts with "www.". Its origin (scheme and host as the
// start page answered, after redirects) is the one form in which every URL
// of the site is fetched and compared, so that http://example.com/a and
// https://www.example.com/a are one page.
type site struct {
	name   string // lower-case host without "www." and without the port
	port   string // "" for the scheme's default port
	origin url.URL
}

func newSite(u *url.URL) *site {
	s := &site{origin: url.URL{Scheme: u.Scheme, Host: u.Host}}
	s.name, s.port = siteName(u)
	return s
}

// siteName is a URL's host as the site rule sees it.
func siteName(u *url.URL) (name, port string) {
	name = strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	port = u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	return name, port
}

// contains says whether u is on the site.
func (s *site) contains(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	name, port := siteName(u)
	return name == s.name && port == s.port
}

// moveTo makes u's origin the site's (the start page's redirects decide
// which scheme and which of www./bare the site answers on).
func (s *site) moveTo(u *url.URL) {
	s.origin = url.URL{Scheme: u.Scheme, Host: u.Host}
}

// fetchURL is the form of a same-site URL that is requested: the site's
// origin, no fragment, no tracking parameters. Nil when u is not on the
// site, not http(s), or absurdly long.
func (s *site) fetchURL(u *url.URL) *url.URL {
	if !s.contains(u) || u.Opaque != "" {
		return nil
	}
	v := *u
	v.Scheme, v.Host = s.origin.Scheme, s.origin.Host
	v.User = nil
	v.Fragment, v.RawFragment = "", ""
	if v.Path == "" {
		v.Path, v.RawPath = "/", ""
	}
	v.RawQuery = strings.Join(queryParts(v.RawQuery), "&")
	v.ForceQuery = false
	if len(v.String()) > maxURLLength {
		return nil
	}
	return &v
}

// key is the form two URLs share when they name the same page: besides
// fetchURL's changes, "index.html" and "index.htm" are their folder and
// the query's parameters are sorted.
func key(u *url.URL) string {
	v := *u
	dir, file := path.Split(v.EscapedPath())
	if file == "index.html" || file == "index.htm" {
		v.Path, v.RawPath = dir, ""
		if p, err := url.PathUnescape(dir); err == nil {
			v.Path, v.RawPath = p, dir
		}
	}
	parts := queryParts(v.RawQuery)
	slices.Sort(parts)
	v.RawQuery = strings.Join(parts, "&")
	return v.String()
}

// queryParts are a raw query's parameters, in order, without the empty
// ones and those that only track visitors (they make endless variants of
// one page).
func queryParts(raw string) []string {
	if raw == "" {
		return nil
	}
	var parts []string
	for _, p := range strings.Split(raw, "&") {
		if p == "" {
			continue
		}
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if tracking(strings.ToLower(name)) {
			continue
		}
		parts = append(parts, p)
	}
	return parts
}

func tracking(name string) bool {
	if strings.HasPrefix(name, "utm_") || strings.HasPrefix(name, "mtm_") || strings.HasPrefix(name, "pk_") {
		return true
	}
	switch name {
	case "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid",
		"igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id",
		"oly_enc_id", "vero_id", "rb_clickid", "s_cid", "ref_src",
		"phpsessid", "jsessionid", "sid_hash":
		return true
	}
	return false
}

// skippedExtensions are files that are never text: links to them are not
// requested at all.
var skippedExtensions = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`
		jpg jpeg png gif webp svg ico bmp tif tiff avif heic
		mp3 wav ogg oga m4a flac aac opus mp4 m4v mov avi mkv webm wmv mpg mpeg
		zip gz tgz tar rar 7z bz2 xz zst exe dmg msi iso apk bin img deb rpm
		woff woff2 ttf otf eot css js mjs map json xml rss atom
		doc xls xlsx ppt pptx odt ods odp rtf csv txt md epub`) {
		skippedExtensions["."+e] = true
	}
}

// notText says whether u names a file that is never a page, PDF or DOCX.
func notText(u *url.URL) bool {
	return skippedExtensions[strings.ToLower(path.Ext(u.Path))]
}
