package dashboard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"parley/internal/audit"
	"parley/internal/clientip"
	"parley/internal/domain"
	"parley/internal/password"
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
				ctx := audit.WithActor(context.WithValue(r.Context(), userKey{}, u), d.actor(r, u))
				next(w, r.WithContext(ctx))
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

// SignIn checks a password. Failures make the same client wait longer
// and longer (package signin): a refused attempt is a 429 with
// Retry-After, checked before the password, so it costs no hashing either.
func (d *Dashboard) SignIn(w http.ResponseWriter, r *http.Request) {
	form := authForm{Signup: d.Signup}
	if status, key := readForm(w, r, maxForm); key != "" {
		d.render(w, r, status, "signin", view{Title: "signin.title", Error: key, Data: form})
		return
	}
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	password := r.PostFormValue("password")
	form.Email = email
	ip := d.ClientIP(r)
	now := d.Now()
	if wait := d.signins.Wait(now, email, ip); wait > 0 {
		d.render(w, r, http.StatusTooManyRequests, "signin", view{Title: "signin.title", Error: "signin.slow",
			ErrorArgs: []any{retryAfter(w, language(r), wait)}, Data: form})
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
		d.signins.Failed(now, email, ip)
		if err == nil { // a user of an account: the account's log says so
			d.Audit.Record(audit.WithActor(r.Context(), d.actor(r, u)), u.AccountID, audit.AccountSigninFailed, audit.Target("user", u.ID))
		}
		d.render(w, r, http.StatusUnauthorized, "signin", view{Title: "signin.title", Error: "signin.wrong", Data: form})
		return
	}
	d.signins.Succeeded(email, ip)
	if err := d.startSession(w, r, u); err != nil {
		d.fail(w, r, err)
		return
	}
	d.Audit.Record(audit.WithActor(r.Context(), d.actor(r, u)), u.AccountID, audit.AccountSignin, audit.Target("user", u.ID))
	http.Redirect(w, r, "/inbox", http.StatusSeeOther)
}

// dummyHash is a bcrypt hash of a random password nobody knows, checked
// for unknown emails. A constant, not made when the program starts:
// hashing at bcrypt's cost takes 60 ms, and 0.8 s under the race detector,
// in every process that imports the dashboard, CLI commands and every
// test binary included (docs/benchmarks.md, "Start-up"); nor on the first
// unknown email, which would then take longer than the next. Its cost is
// secret.HashPassword's (TestDummyHashCost), so checking it takes as long
// as checking a user's.
const dummyHash = "$2a$10$mPmPayWG/c.Wnke4uyQY8uX5qaOI2oHiRxhVIyneB6Pu1m.d9wdkK"

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
	d.rememberLanguage(r, u.ID, language(r))
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

// SignupsPerHour is how many sign-ups one network (an IPv4 address, an
// IPv6 /64) may make per hour, counted in fixed hourly windows: a team
// signing up from one office fits, a script filling the database does not.
// Only attempts that get as far as hashing count.
const SignupsPerHour = 5

// maxName bounds the sign-up's display name, as the team page does.
const maxName = 100

// SignUp creates an account when sign-up is open (PARLEY_SIGNUP=true).
func (d *Dashboard) SignUp(w http.ResponseWriter, r *http.Request) {
	if !d.Signup {
		d.render(w, r, http.StatusForbidden, "signin", view{Title: "signin.title", Error: "signup.off", Data: authForm{}})
		return
	}
	form := authForm{Signup: true}
	fail := func(status int, key string, args ...any) {
		d.render(w, r, status, "signup", view{Title: "signup.title", Error: key, ErrorArgs: args, Data: form})
	}
	if status, key := readForm(w, r, maxForm); key != "" {
		fail(status, key)
		return
	}
	form.Email, form.Name = strings.TrimSpace(r.PostFormValue("email")), strings.TrimSpace(r.PostFormValue("name"))
	pw := r.PostFormValue("password")
	network, now := clientip.Network(d.ClientIP(r)), d.Now()
	if d.signups.Exhausted(now, network) {
		fail(http.StatusTooManyRequests, "signup.slow", retryAfter(w, language(r), d.signups.Reset(now).Sub(now)))
		return
	}
	if !validEmail(form.Email) {
		fail(http.StatusBadRequest, "email.invalid")
		return
	}
	if utf8.RuneCountInString(form.Name) > maxName {
		form.Name = ""
		fail(http.StatusBadRequest, "signup.namelong")
		return
	}
	if key := passwordProblem(pw); key != "" {
		fail(http.StatusBadRequest, key)
		return
	}
	d.signups.Add(now, network)
	hash, key := hashNewPassword(pw)
	if key != "" {
		fail(http.StatusBadRequest, key)
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
		d.Audit.Record(r.Context(), u.AccountID, audit.AccountPassword, audit.Target("user", u.ID))
		err = d.startSession(w, r, u)
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents", http.StatusSeeOther)
}

// maxEmail is the longest address SMTP carries (RFC 5321's path limit).
const maxEmail = 254

func validEmail(s string) bool {
	if len(s) > maxEmail {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

// passwordProblem applies the rule for new passwords (package password)
// and names the message to show; "" when the password meets it.
func passwordProblem(p string) string {
	switch password.Check(p) {
	case nil:
		return ""
	case password.ErrTooShort:
		return "password.short"
	case password.ErrTooLong:
		return "password.long"
	default:
		return "password.common"
	}
}

// hashNewPassword applies the rule and hashes the password; key names the
// problem when it is refused.
func hashNewPassword(p string) (hash, key string) {
	if key := passwordProblem(p); key != "" {
		return "", key
	}
	h, err := secret.HashPassword(p)
	if err != nil {
		return "", "password.long" // bcrypt refuses only what the rule refuses already
	}
	return h, ""
}

func (d *Dashboard) PasswordPage(w http.ResponseWriter, r *http.Request) {
	data, err := d.accountPage(r, "")
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "password", view{Title: "password.title", Data: data})
}

// ChangePassword also ends every other session of the user. Wrong current
// passwords count as failed sign-ins, so a stolen session cannot guess the
// password here faster than at the sign-in page.
func (d *Dashboard) ChangePassword(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	fail := func(status int, key string, args ...any) {
		data, err := d.accountPage(r, "")
		if err != nil {
			d.fail(w, r, err)
			return
		}
		d.render(w, r, status, "password", view{Title: "password.title", Error: key, ErrorArgs: args, Data: data})
	}
	if status, key := readForm(w, r, maxForm); key != "" {
		fail(status, key)
		return
	}
	ip, now := d.ClientIP(r), d.Now()
	if wait := d.signins.Wait(now, u.Email, ip); wait > 0 {
		fail(http.StatusTooManyRequests, "signin.slow", retryAfter(w, language(r), wait))
		return
	}
	if !secret.CheckPassword(u.PasswordHash, r.PostFormValue("current")) {
		d.signins.Failed(now, u.Email, ip)
		fail(http.StatusBadRequest, "password.wrong")
		return
	}
	hash, key := hashNewPassword(r.PostFormValue("new"))
	if key != "" {
		fail(http.StatusBadRequest, key)
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

// clientAddr is the TCP peer's address, the default of Options.ClientIP
// (the server passes its trusted-proxy logic instead).
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
	if errors.Is(err, store.ErrBadText) {
		// Text a store cannot keep that got past RefuseNUL (a NUL deep in
		// a long upload's headers): the request's fault, not the server's.
		d.render(w, r, http.StatusBadRequest, "error", view{Title: "error.bad", Error: "error.nul"})
		return
	}
	d.Logger.ErrorContext(r.Context(), "dashboard request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	d.render(w, r, http.StatusInternalServerError, "error", view{Title: "error.internal", Error: "error.internal"})
}

// actor is u acting through this request, for the audit log.
func (d *Dashboard) actor(r *http.Request, u domain.User) audit.Actor {
	return audit.Actor{Type: audit.ActorUser, ID: u.ID, Name: u.Email, IP: d.ClientIP(r)}
}
