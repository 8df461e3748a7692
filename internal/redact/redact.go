// Package redact takes passwords and other secrets out of connection
// strings before they are logged or shown: database, Redis and LLM URLs,
// PostgreSQL's key=value DSNs, and error messages that quote them. Every
// place that logs such a string, or wraps an error that may quote one,
// goes through String or Error.
package redact

import (
	"net/url"
	"strings"
)

// Mask replaces each secret (as net/url's URL.Redacted does).
const Mask = "xxxxx"

// secretKeys are query parameters and key=value settings whose value is a
// secret, compared in lower case with '-' read as '_': libpq's password
// and sslpassword, and the names APIs give keys and tokens in URLs.
var secretKeys = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "pass": true, "sslpassword": true,
	"api_key": true, "apikey": true, "key": true, "token": true,
	"access_token": true, "auth_token": true, "secret": true, "client_secret": true,
}

func secretKey(k string) bool {
	if u, err := url.QueryUnescape(k); err == nil {
		k = u
	}
	return secretKeys[strings.ReplaceAll(strings.ToLower(k), "-", "_")]
}

// String returns s with the secrets masked: in every URL within it the
// password of the user info and the values of secret query parameters, and
// elsewhere the values of secret key=value settings (password=…,
// password='…'). Everything else is left as it is. Where a malformed
// string makes the boundaries unclear, it masks more rather than less.
func String(s string) string {
	var b strings.Builder
	for {
		start, end := nextURL(s)
		if start < 0 {
			b.WriteString(keyValues(s))
			return b.String()
		}
		b.WriteString(keyValues(s[:start]))
		b.WriteString(urlSecrets(s[start:end]))
		s = s[end:]
	}
}

// Error is err with its message passed through String; errors.Is and As
// still see err.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return redacted{err}
}

type redacted struct{ err error }

func (r redacted) Error() string { return String(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

// nextURL finds the first scheme://… in s: it starts at the scheme and
// ends before white space, a quote or an angle bracket.
func nextURL(s string) (start, end int) {
	from := 0
	for {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return -1, -1
		}
		i += from
		start = i
		for start > 0 && schemeChar(s[start-1]) {
			start--
		}
		if start < i && isLetter(s[start]) {
			end = i + 3
			for end < len(s) && !strings.ContainsRune(" \t\r\n\"'`<>", rune(s[end])) {
				end++
			}
			return start, end
		}
		from = i + 3
	}
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func schemeChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// urlSecrets masks the user info's password and secret query values of
// one URL.
func urlSecrets(u string) string {
	scheme := strings.Index(u, "://") + 3
	rest := u[scheme:]
	// The user info ends at the last '@', unless that '@' is in the query
	// (after a '?' and a '='): then at the last '@' before the query.
	at := strings.LastIndexByte(rest, '@')
	for at >= 0 {
		q := strings.IndexByte(rest[:at], '?')
		if q < 0 || !strings.Contains(rest[q:at], "=") {
			break
		}
		at = strings.LastIndexByte(rest[:q], '@')
	}
	var b strings.Builder
	b.WriteString(u[:scheme])
	if at >= 0 {
		info := rest[:at]
		if c := strings.IndexByte(info, ':'); c >= 0 && c+1 < len(info) {
			info = info[:c+1] + Mask
		}
		b.WriteString(info)
		rest = rest[at:]
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		b.WriteString(rest)
		return b.String()
	}
	b.WriteString(rest[:q+1])
	query, fragment := rest[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, fragment = query[:h], query[h:]
	}
	for i, pair := range strings.Split(query, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		if k, v, ok := strings.Cut(pair, "="); ok && v != "" && secretKey(k) {
			pair = k + "=" + Mask
		}
		b.WriteString(pair)
	}
	b.WriteString(fragment)
	return b.String()
}

// keyValues masks the values of secret key=value settings in text with no
// URL in it: libpq's form (password=secret, password = 'it\'s quoted')
// and the like in error messages. An unquoted value runs to white space.
func keyValues(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		// A key starts at the beginning or after a character that is
		// not part of a key.
		if i > 0 && keyChar(s[i-1]) || !keyChar(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		k := i
		for k < len(s) && keyChar(s[k]) {
			k++
		}
		eq := k
		for eq < len(s) && s[eq] == ' ' {
			eq++
		}
		if eq == len(s) || s[eq] != '=' || !secretKey(s[i:k]) {
			b.WriteString(s[i:k])
			i = k
			continue
		}
		v := eq + 1
		for v < len(s) && s[v] == ' ' {
			v++
		}
		b.WriteString(s[i:v])
		end := v
		switch {
		case v < len(s) && s[v] == '\'':
			end = v + 1
			for end < len(s) && s[end] != '\'' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			b.WriteString("'" + Mask + "'")
			end = min(end+1, len(s))
		default:
			for end < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[end])) {
				end++
			}
			if end > v {
				b.WriteString(Mask)
			}
		}
		i = end
	}
	return b.String()
}

func keyChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-'
}
