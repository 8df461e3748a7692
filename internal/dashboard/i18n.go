package dashboard

import (
	"fmt"
	"net/http"
	"strings"

	"parley/internal/secret"
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

// SetLanguage stores the language switch in a cookie and, for a signed-in
// user, on the user, and goes back.
func (d *Dashboard) SetLanguage(w http.ResponseWriter, r *http.Request) {
	lang := r.PostFormValue("lang")
	if known(lang) {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, Secure: d.secure(r)})
		if c, err := r.Cookie(sessionCookie); err == nil {
			if u, err := d.Store.SessionUser(r.Context(), secret.HashToken(c.Value), d.Now()); err == nil {
				d.rememberLanguage(r, u.ID, lang)
			}
		}
	}
	http.Redirect(w, r, sameSitePath(r.PostFormValue("back")), http.StatusSeeOther)
}

// rememberLanguage records the language a user reads the dashboard in, at
// sign-in and at the switch, so that mail to them (the wait alerts,
// package offline) is written in it. The cookie alone would not do: the
// alerts are sent by the job queue, with no request. A failure is logged
// and costs only the mail's language, never the sign-in or the switch.
func (d *Dashboard) rememberLanguage(r *http.Request, userID, lang string) {
	if err := d.Store.SetUserLanguage(r.Context(), userID, lang); err != nil {
		d.Logger.Warn("dashboard: recording the user's language", "user", userID, "err", err)
	}
}

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
