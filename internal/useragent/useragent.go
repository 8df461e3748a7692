// Package useragent names the browser and operating system of a
// User-Agent header, for the operator desk's visitor details. It knows the
// major browsers and systems only and says "" for what it does not
// recognise; it is a hint for people, never used for decisions.
package useragent

import "strings"

// Agent is what a User-Agent names.
type Agent struct {
	Browser string // "Chrome", "Firefox", "Safari", "Edge", "Opera", "Samsung Internet", "" when unknown
	Version string // the browser's major version, "" when unknown
	OS      string // "Windows", "macOS", "iOS", "iPadOS", "Android", "Linux", "ChromeOS", "" when unknown
	Mobile  bool
}

// browsers are checked in order: most browsers also name the engines they
// are built on (Edge says Chrome and Safari too), so the specific come
// before the general.
var browsers = []struct{ token, name string }{
	{"EdgiOS/", "Edge"},
	{"EdgA/", "Edge"},
	{"Edg/", "Edge"},
	{"Edge/", "Edge"},
	{"OPR/", "Opera"},
	{"OPiOS/", "Opera"},
	{"SamsungBrowser/", "Samsung Internet"},
	{"YaBrowser/", "Yandex Browser"},
	{"Vivaldi/", "Vivaldi"},
	{"FxiOS/", "Firefox"},
	{"Firefox/", "Firefox"},
	{"CriOS/", "Chrome"},
	{"Chromium/", "Chromium"},
	{"Chrome/", "Chrome"},
	{"Version/", "Safari"}, // Safari's own version; checked only with "Safari/" below
	{"MSIE ", "Internet Explorer"},
	{"Trident/", "Internet Explorer"},
}

// Parse reads ua.
func Parse(ua string) Agent {
	var a Agent
	for _, b := range browsers {
		i := strings.Index(ua, b.token)
		if i < 0 {
			continue
		}
		if b.name == "Safari" && !strings.Contains(ua, "Safari/") {
			continue
		}
		a.Browser = b.name
		if b.token == "Trident/" {
			if j := strings.Index(ua, "rv:"); j >= 0 {
				a.Version = major(ua[j+3:])
			}
		} else {
			a.Version = major(ua[i+len(b.token):])
		}
		break
	}
	a.OS = system(ua)
	a.Mobile = strings.Contains(ua, "Mobile") || a.OS == "iOS" || (a.OS == "Android" && !strings.Contains(ua, "Tablet"))
	if a.OS == "iPadOS" {
		a.Mobile = false
	}
	return a
}

func system(ua string) string {
	switch {
	case strings.Contains(ua, "iPad"):
		return "iPadOS"
	case strings.Contains(ua, "iPhone"), strings.Contains(ua, "iPod"):
		return "iOS"
	case strings.Contains(ua, "Android"):
		return "Android"
	case strings.Contains(ua, "CrOS"):
		return "ChromeOS"
	case strings.Contains(ua, "Windows"):
		return "Windows"
	case strings.Contains(ua, "Macintosh"), strings.Contains(ua, "Mac OS X"):
		return "macOS"
	case strings.Contains(ua, "Linux"), strings.Contains(ua, "X11"):
		return "Linux"
	}
	return ""
}

// major is the leading run of digits of s.
func major(s string) string {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return s[:n]
}

// String is "Firefox 130 on Linux", shortened to what is known; "" when
// nothing is.
func (a Agent) String() string {
	b := a.Browser
	if b != "" && a.Version != "" {
		b += " " + a.Version
	}
	switch {
	case b != "" && a.OS != "":
		return b + " · " + a.OS
	case b != "":
		return b
	}
	return a.OS
}
