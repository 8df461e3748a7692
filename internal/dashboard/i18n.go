package dashboard

import (
	"fmt"
	"net/http"
	"strings"

	"parley/web/i18n"
)

// languages the dashboard speaks, in the order of the switch: Parley's one
// list (package i18n).
var languages = i18n.Languages

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

func known(lang string) bool { return i18n.Known(lang) }

// T translates a message key into lang from the message catalogues
// (web/i18n/*.json): a missing translation falls back to English, a
// missing key shows the key (the catalogue and template tests catch both).
func T(lang, key string) string { return i18n.Text(lang, key) }

// tf translates key and fills its verbs with args (none: the text as is).
func tf(lang, key string, args []any) string {
	if len(args) == 0 {
		return T(lang, key)
	}
	return fmt.Sprintf(T(lang, key), args...)
}
