package dashboard

import (
	"fmt"
	"net/http"
	"strings"
)

// Languages the dashboard speaks, in the order of the switch.
var languages = []string{"en", "ro", "ru"}

// langCookie remembers the language switch.
const langCookie = "parley_lang"

// language picks the page language: the switch's cookie, else the
// browser's Accept-Language, else English.
func language(r *http.Request) string {
	if c, err := r.Cookie(langCookie); err == nil && known(c.Value) {
		return c.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if known(base) {
			return base
		}
	}
	return "en"
}

func known(lang string) bool {
	for _, l := range languages {
		if l == lang {
			return true
		}
	}
	return false
}

// T translates a message key into lang; a missing translation falls back
// to English, a missing key shows the key (a test catches both).
func T(lang, key string) string {
	m, ok := messages[key]
	if !ok {
		return key
	}
	if s := m[lang]; s != "" {
		return s
	}
	return m["en"]
}

// tf translates key and fills its verbs with args (none: the text as is).
func tf(lang, key string, args []any) string {
	if len(args) == 0 {
		return T(lang, key)
	}
	return fmt.Sprintf(T(lang, key), args...)
}
