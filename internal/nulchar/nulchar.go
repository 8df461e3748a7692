// Package nulchar finds the NUL character (U+0000) in text and in JSON.
// PostgreSQL cannot store it in a text or jsonb column (SQLite can), so
// Parley refuses it wherever input enters (docs/api.md), and the stores
// refuse what still reaches them, the same way on both databases.
package nulchar

import (
	"bytes"
	"strings"
)

// In reports whether s holds a NUL.
func In(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// InJSON reports whether the JSON text b holds a NUL: a \u0000 escape in
// a string (a raw NUL byte is not valid JSON at all, so it is reported
// too).
func InJSON(b []byte) bool {
	var s Scanner
	s.Write(b)
	return s.Found()
}

// Scanner finds a NUL in JSON text fed to it in pieces of any size, as
// it streams past (a request body being decoded). It tells an escaped
// backslash followed by "u0000" (the text `\u0000`, six characters) from
// the escape itself by counting the backslashes before the u. It does not
// parse JSON: a \u0000 outside a string makes invalid JSON, which the
// decoder refuses anyway.
type Scanner struct {
	found   bool
	slashes int // backslashes in the current run
	matched int // characters of `u0000` matched after an odd run of backslashes
}

// Write scans p; it never fails (it is an io.Writer).
func (s *Scanner) Write(p []byte) (int, error) {
	if s.found {
		return len(p), nil
	}
	if s.slashes == 0 && s.matched == 0 {
		// Most text has no escape at all: skip to the first backslash
		// (a raw NUL anywhere is found either way).
		if bytes.IndexByte(p, 0) >= 0 {
			s.found = true
			return len(p), nil
		}
		i := bytes.IndexByte(p, '\\')
		if i < 0 {
			return len(p), nil
		}
		p = p[i:]
	}
	for _, c := range p {
		switch {
		case c == 0:
			s.found = true
			return len(p), nil
		case s.matched > 0 || (c == 'u' && s.slashes%2 == 1):
			if c != "u0000"[s.matched] {
				s.matched = 0
				s.slashes = 0
				if c == '\\' {
					s.slashes = 1
				}
				continue
			}
			s.matched++
			s.slashes = 0
			if s.matched == len("u0000") {
				s.found = true
				return len(p), nil
			}
		case c == '\\':
			s.slashes++
		default:
			s.slashes = 0
		}
	}
	return len(p), nil
}

// Found reports whether a NUL was seen.
func (s *Scanner) Found() bool { return s.found }
