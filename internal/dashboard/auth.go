package dashboard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strings"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

const sessionCookie = "parley_session"

// User and Owner wrap handlers for the route table: User admits any
// signed-in user of the account, Owner only its owners.
func (d *Dashboard) User(h http.HandlerFunc) http.HandlerFunc  { return d.requireUser(h) }
func (d *Dashboard) Owner(h http.HandlerFunc) http.HandlerFunc { return d.requireOwner(h) }

// Static serves the dashboard's stylesheet and script.
func (d *Dashboard) Static() http.Handler { return d.static }

// requireUser lets signed-in users through and sends everyone else to the
// sign-in page (or answers 401 to the live-update stream).
func (d *Dashboard) requireUser(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(sessionCookie)
		if err == nil {
			u, err := d.Store.SessionUser(r.Context(), secret.HashToken(c.Value), d.Now())
			if err == nil {
				next(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
				return
			}
			if !errors.Is(err, domain.ErrNotFound) {
				d.fail(w, r, err)
				return
			}
		}
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/events") {
			http.Redirect(w, r, "/signin", http.StatusSeeOther)
			return
		}
		http.Error(w, "sign in first", http.StatusUnauthorized)
	}
}

// requireOwner admits only the account's owners: operators answer
// conversations but do not change agents, keys, billing or the team.
func (d *Dashboard) requireOwner(next http.HandlerFunc) http.HandlerFunc {
	return d.requireUser(func(w http.ResponseWriter, r *http.Request) {
		if !user(r).IsOwner() {
			d.render(w, r, http.StatusForbidden, "error", view{Title: "error.forbidden", Error: "error.forbidden"})
			return
		}
		next(w, r)
	})
}

// Home sends signed-in users to the inbox and others to the sign-in page.
func (d *Dashboard) Home(w http.ResponseWriter, r *http.Request) {
	d.requireUser(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/inbox", http.StatusSeeOther)
	})(w, r)
}

type authForm struct {
	Email, Name string
	Signup      bool // sign-up is open on this instance
}

func (d *Dashboard) SignInPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "signin", view{Title: "signin.title", Data: authForm{Signup: d.Signup}})
}

func (d *Dashboard) SignIn(w http.ResponseWriter, r *http.Request) {
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	password := r.PostFormValue("password")
	form := authForm{Email: email, Signup: d.Signup}
	ip := d.ClientIP(r)
	now := d.Now()
	if d.signins.Exhausted(now, "email:"+email, "ip:"+ip) {
		d.render(w, r, http.StatusTooManyRequests, "signin", view{Title: "signin.title", Error: "signin.slow", Data: form})
		return
	}
	u, err := d.Store.UserByEmail(r.Context(), email)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		d.fail(w, r, err)
		return
	}
	// Check a hash even for unknown emails, so timing does not tell which
	// emails have accounts.
	hash := u.PasswordHash
	if hash == "" {
		hash = dummyHash
	}
	if !secret.CheckPassword(hash, password) || err != nil {
		d.signins.Add(now, "email:"+email, "ip:"+ip)
		d.render(w, r, http.StatusUnauthorized, "signin", view{Title: "signin.title", Error: "signin.wrong", Data: form})
		return
	}
	if err := d.startSession(w, r, u); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/inbox", http.StatusSeeOther)
}

// dummyHash is a bcrypt hash of a random password, checked for unknown
// emails.
var dummyHash = func() string {
	h, _ := secret.HashPassword(secret.ID("", 16))
	return h
}()

func (d *Dashboard) startSession(w http.ResponseWriter, r *http.Request, u domain.User) error {
	token := secret.ID("", 32)
	expires := d.Now().Add(SessionLifetime)
	if err := d.Store.CreateSession(r.Context(), u.ID, secret.HashToken(token), expires); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: d.secure(r),
	})
	return nil
}

// secure: cookies are Secure behind HTTPS (directly, or per the public base URL).
func (d *Dashboard) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(d.BaseURL, "https://")
}

func (d *Dashboard) SignOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := d.Store.DeleteSession(r.Context(), secret.HashToken(c.Value)); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: d.secure(r)})
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

func (d *Dashboard) SignUpPage(w http.ResponseWriter, r *http.Request) {
	if !d.Signup {
		d.render(w, r, http.StatusForbidden, "signin", view{Title: "signin.title", Error: "signup.off", Data: authForm{}})
		return
	}
	d.render(w, r, http.StatusOK, "signup", view{Title: "signup.title", Data: authForm{Signup: true}})
}

func (d *Dashboard) SignUp(w http.ResponseWriter, r *http.Request) {
	if !d.Signup {
		d.render(w, r, http.StatusForbidden, "signin", view{Title: "signin.title", Error: "signup.off", Data: authForm{}})
		return
	}
	form := authForm{Email: strings.TrimSpace(r.PostFormValue("email")), Name: strings.TrimSpace(r.PostFormValue("name")), Signup: true}
	password := r.PostFormValue("password")
	fail := func(status int, key string) {
		d.render(w, r, status, "signup", view{Title: "signup.title", Error: key, Data: form})
	}
	if !validEmail(form.Email) {
		fail(http.StatusBadRequest, "email.invalid")
		return
	}
	hash, ok := hashNewPassword(password)
	if !ok {
		fail(http.StatusBadRequest, "password.short")
		return
	}
	acc, err := d.Store.CreateAccount(r.Context(), store.NewAccount{Email: form.Email, Name: form.Name, PasswordHash: hash, Limits: domain.DefaultLimits})
	if errors.Is(err, domain.ErrConflict) {
		fail(http.StatusConflict, "signup.taken")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	u, err := d.Store.UserByEmail(r.Context(), acc.Email)
	if err == nil {
		err = d.startSession(w, r, u)
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents", http.StatusSeeOther)
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && len(s) <= 254
}

// hashNewPassword enforces the password rule (8 to 72 bytes, bcrypt's
// limit) and hashes it.
func hashNewPassword(p string) (string, bool) {
	if len([]rune(p)) < 8 || len(p) > 72 {
		return "", false
	}
	h, err := secret.HashPassword(p)
	return h, err == nil
}

func (d *Dashboard) PasswordPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "password", view{Title: "password.title"})
}

// ChangePassword also ends every other session of the user.
func (d *Dashboard) ChangePassword(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	fail := func(status int, key string) {
		d.render(w, r, status, "password", view{Title: "password.title", Error: key})
	}
	if !secret.CheckPassword(u.PasswordHash, r.PostFormValue("current")) {
		fail(http.StatusBadRequest, "password.wrong")
		return
	}
	hash, ok := hashNewPassword(r.PostFormValue("new"))
	if !ok {
		fail(http.StatusBadRequest, "password.short")
		return
	}
	err := d.Store.SetPassword(r.Context(), u.ID, hash)
	if err == nil {
		err = d.Store.DeleteUserSessions(r.Context(), u.ID)
	}
	if err == nil {
		err = d.startSession(w, r, u)
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/account/password?flash=password.done", http.StatusSeeOther)
}

// SetLanguage stores the language switch in a cookie and goes back.
func (d *Dashboard) SetLanguage(w http.ResponseWriter, r *http.Request) {
	lang := r.PostFormValue("lang")
	if known(lang) {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, Secure: d.secure(r)})
	}
	http.Redirect(w, r, sameSitePath(r.PostFormValue("back")), http.StatusSeeOther)
}

// sameSitePath returns back if it is a path on this site, else "/": no
// open redirect. Browsers read a backslash as a slash and drop tabs and
// newlines, so "/\evil.test" or "/\t/evil.test" would leave the site as
// "//evil.test" does; such forms, and anything with a scheme or host, are
// refused rather than repaired.
func sameSitePath(back string) string {
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.ContainsRune(back, '\\') {
		return "/"
	}
	for _, c := range back {
		if c < 0x20 || c == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return back
}

// clientAddr is the TCP peer's address (the server's trusted-proxy logic
// is for the widget API; sign-in limits also count per email).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// fail logs an unexpected error and shows a generic error page.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, domain.ErrNotFound) {
		d.render(w, r, http.StatusNotFound, "error", view{Title: "error.notfound", Error: "error.notfound"})
		return
	}
	d.Logger.ErrorContext(r.Context(), "dashboard request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	d.render(w, r, http.StatusInternalServerError, "error", view{Title: "error.internal", Error: "error.internal"})
}
