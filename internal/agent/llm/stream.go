package llm

import (
	"encoding/json"
	"regexp"
	"strings"
)

// replyStream follows the model's content as it streams and hands the
// visitor only the reply's text (onDelta): the model is asked for a JSON
// object (replyFormat), whose "reply" string is decoded as it arrives;
// content that does not start as JSON (a model that ignored the format)
// is the reply itself and is passed on as it comes. The final answer is
// still parsed whole by parseReply: what streams is a preview, and where a
// model wraps its JSON in prose the preview shows the raw text, which the
// final answer then replaces.
type replyStream struct {
	onDelta func(string) // the visitor's preview, through markers (markerFilter)
	raw     strings.Builder
	pos     int // bytes of raw consumed
	state   streamState
	started bool // a piece was handed on (leading blanks are dropped before)
}

type streamState int

const (
	undecided streamState = iota // only blanks so far
	seekReply                    // in a JSON object, before "reply"'s string
	inReply                      // inside the reply string
	plain                        // not JSON: everything is the reply
	finished                     // the reply string ended
)

// replyKey finds the start of the reply string: the key, the colon and
// the opening quote.
var replyKey = regexp.MustCompile(`"reply"\s*:\s*"`)

// write takes the next piece of the model's content.
func (s *replyStream) write(piece string) {
	s.raw.WriteString(piece)
	raw := s.raw.String()
	if s.state == undecided {
		rest := strings.TrimLeft(raw[s.pos:], " \t\r\n")
		s.pos = len(raw) - len(rest)
		switch {
		case rest == "":
			return
		case strings.HasPrefix(rest, "{"):
			s.state = seekReply
		case strings.HasPrefix(codeFence, rest):
			return // perhaps a ``` fence: wait for more
		case strings.HasPrefix(rest, codeFence):
			s.state = seekReply
		default:
			s.state = plain
		}
	}
	if s.state == seekReply {
		loc := replyKey.FindStringIndex(raw[s.pos:])
		if loc == nil {
			return
		}
		s.pos += loc[1]
		s.state = inReply
	}
	switch s.state {
	case plain:
		s.emit(raw[s.pos:])
		s.pos = len(raw)
	case inReply:
		text, n, closed := decodeJSONString(raw[s.pos:])
		s.pos += n
		if closed {
			s.state = finished
		}
		s.emit(text)
	}
}

func (s *replyStream) emit(text string) {
	if !s.started {
		text = strings.TrimLeft(text, " \t\r\n")
	}
	if text == "" {
		return
	}
	s.started = true
	s.onDelta(text)
}

// decodeJSONString decodes the body of a JSON string (after its opening
// quote) as far as it is complete: it returns the text, how many bytes it
// consumed, and whether the closing quote was reached. An escape cut by the
// end of the input (or a high surrogate whose low half has not arrived) is
// left for the next call.
func decodeJSONString(s string) (text string, n int, closed bool) {
	var b strings.Builder
	for n < len(s) {
		c := s[n]
		switch {
		case c == '"':
			return b.String(), n + 1, true
		case c != '\\':
			// Plain text up to the next quote or backslash.
			end := strings.IndexAny(s[n:], "\"\\")
			if end < 0 {
				end = len(s) - n
			}
			b.WriteString(s[n : n+end])
			n += end
		default:
			size := escapeLen(s[n:])
			if size == 0 {
				return b.String(), n, false // incomplete: wait
			}
			var r string
			if json.Unmarshal([]byte(`"`+s[n:n+size]+`"`), &r) != nil {
				// Not an escape JSON knows: show it as written.
				r = s[n : n+size]
			}
			b.WriteString(r)
			n += size
		}
	}
	return b.String(), n, false
}

// escapeLen is the length of the escape at the start of s ("\n", "\u00e9",
// or a surrogate pair "\ud83d\ude00"), or 0 when s ends before it does.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	if s[1] != 'u' {
		return 2
	}
	if len(s) < 6 {
		return 0
	}
	if r := hex4(s[2:6]); r >= 0xd800 && r < 0xdc00 {
		// A high surrogate: its low half follows as a second \u escape.
		rest := s[6:]
		switch {
		case len(rest) >= 6 && rest[:2] == `\u`:
			return 12
		case len(rest) < 6 && (strings.HasPrefix(rest, `\u`) || strings.HasPrefix(`\u`, rest)):
			return 0
		}
	}
	return 6
}

// hex4 is the value of four hex digits, or -1.
func hex4(s string) int {
	v := 0
	for i := range 4 {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}
