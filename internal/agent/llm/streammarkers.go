package llm

import (
	"regexp"
	"strings"
)

// markerFilter keeps the grounding markers out of a streamed preview: the
// model writes "[1]" after what it took from passage 1 and starts a reply it
// cannot give with "[NO_ANSWER]" (prompt.go), and ground removes both from
// the final answer; a visitor watching the reply grow must not see them
// either. Text from a "[" on is held back until it is either a whole
// marker (dropped) or cannot become one (handed on).
type markerFilter struct {
	out  func(string)
	held string
	trim bool // blanks after a dropped no-answer marker are dropped too
}

var (
	citePrefix = regexp.MustCompile(`^\[\s*\d{0,3}(?:\s*,\s*\d{0,3})*\s*$`)
	citeWhole  = regexp.MustCompile(`^\[\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*\]`)
	noAnswerAt = regexp.MustCompile(`(?i)^\[\s*NO[_ ]ANSWER\s*\]`)
)

// maxMarker bounds what is held: no marker is longer.
const maxMarker = 24

func (f *markerFilter) write(text string) {
	s := f.held + text
	f.held = ""
	for s != "" {
		if f.trim {
			if s = strings.TrimLeft(s, " \t\r\n"); s == "" {
				return
			}
			f.trim = false
		}
		i := strings.IndexByte(s, '[')
		if i < 0 {
			f.out(s)
			return
		}
		if i > 0 {
			f.out(s[:i])
			s = s[i:]
		}
		if m := citeWhole.FindString(s); m != "" {
			s = s[len(m):]
			continue
		}
		if m := noAnswerAt.FindString(s); m != "" {
			s, f.trim = s[len(m):], true
			continue
		}
		if len(s) < maxMarker && maybeMarker(s) {
			f.held = s // wait for the rest
			return
		}
		f.out("[")
		s = s[1:]
	}
}

// maybeMarker reports whether s, which starts with "[", may still grow
// into a marker.
func maybeMarker(s string) bool {
	if citePrefix.MatchString(s) {
		return true
	}
	up := strings.ToUpper(strings.TrimSpace(s[1:]))
	return strings.HasPrefix("NO_ANSWER]", up) || strings.HasPrefix("NO ANSWER]", up)
}
