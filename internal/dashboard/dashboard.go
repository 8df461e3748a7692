// Package dashboard serves the owners' and operators' web interface:
// sign-in, the inbox of conversations with live updates, a conversation
// with takeover and replies, agents with their embed code and knowledge,
// usage and the team. Pages are server-rendered html/template with a little
// hand-written JavaScript for live updates (web/dashboard).
package dashboard

import (
	"context"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"parley/internal/agentadmin"
	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/chat"
	"parley/internal/desk"
	"parley/internal/deskview"
	"parley/internal/domain"
	"parley/internal/initlimit"
	"parley/internal/insights"
	"parley/internal/notify"
	"parley/internal/offline"
	"parley/internal/origins"
	"parley/internal/ratelimit"
	"parley/internal/retention"
	"parley/internal/signin"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/surge"
	"parley/internal/webhooks"
	dashweb "parley/web/dashboard"
	"parley/web/i18n"
)

// Store is what the dashboard reads and writes in the store itself:
// everything but widget keys and knowledge, which it changes through
// AgentAdmin (agents are read here, written there), and the health check.
type Store interface {
	store.Accounts
	store.APITokens
	store.Agents
	store.Conversations
	store.Messages
	store.Usage
	store.Users
	store.Sessions
	store.Visitors
}

// Options configure the dashboard.
type Options struct {
	Store    Store
	Chat     *chat.Service
	Notifier notify.Notifier
	// AgentAdmin applies the rules for agents, their widget keys and
	// their knowledge (with the instance's bounds, the knowledge cache and
	// the LLM endpoint check). Required.
	AgentAdmin *agentadmin.Service
	Signup     bool // anyone may create an account
	// ClientIP names the client for the sign-in and sign-up limits (the
	// server's trusted-proxy logic); default: the TCP peer.
	ClientIP func(*http.Request) string
	BaseURL  string // public URL for embed snippets; "" uses the request's host
	Logger   *slog.Logger
	Now      func() time.Time
	// Surges, when set, puts a banner on every page while the account
	// gets far more new conversations than usual (surge.go).
	Surges *surge.Detector
	// Limits are the agents' limits on new conversations; the settings
	// form shows its defaults.
	Limits *initlimit.Limiter
	// Sources applies the rules for agents' website sources; nil: the
	// agent page has no sources section and its routes answer 404.
	Sources *sources.Service
	// Audit is the accounts' audit log: the dashboard records sign-ins,
	// password changes and the team's changes there, and shows it to
	// owners. Nil: nothing is recorded and the page is empty.
	Audit *audit.Service
	// Retention is the account's data retention (issue 18), shown and set
	// on the team page; nil hides it.
	Retention *retention.Service
	// Origins lists the sites agents' widgets were used from, for the
	// hint under the allowed origins; nil: no hint.
	Origins *origins.Service
	// Desk is the operator desk (issue 19): status, assignment, presence;
	// nil: no resolve, assign or away controls, and their routes 404.
	Desk *desk.Service
	// Webhooks are the account's signed webhook endpoints (issue 18),
	// managed by owners on /webhooks; nil: no such page, its routes 404.
	Webhooks *webhooks.Service
	// Canned is the account's canned replies and the conversations'
	// private notes (issue 19); nil: the conversation page has neither and
	// their routes answer 404.
	Canned *canned.Service
	// DeskView is the operator desk's visitor details and unread counts
	// (issue 19); nil: built over Store when it has what the desk needs,
	// else the inbox shows neither.
	DeskView *deskview.Service
	// Offline holds business hours, wait alerts and ratings (issue 19);
	// nil: the conversation page shows no rating, the team page no
	// business hours, the account page no wait alert (their routes 404).
	Offline *offline.Service
	// Insights is the reports, knowledge gaps and suggested entries
	// (issue 20); nil: no insights page, its routes 404.
	Insights *insights.Service
}

type Dashboard struct {
	Options
	pages    map[string]*template.Template
	rowCache rowCache // the inbox's rows, rendered (rowcache.go)
	static   http.Handler
	signins  *signin.Throttle // failed sign-ins per (account, address) and per address
	signups  *ratelimit.Keyed // accounts created per network per hour
	stopping chan struct{}
	stopOnce sync.Once
}

// Stop ends the live-update streams, so a graceful shutdown need not wait
// for them.
func (d *Dashboard) Stop() { d.stopOnce.Do(func() { close(d.stopping) }) }

// SessionLifetime is how long a sign-in lasts.
const SessionLifetime = 14 * 24 * time.Hour

func New(o Options) (*Dashboard, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ClientIP == nil {
		o.ClientIP = clientAddr
	}
	if ds, ok := o.Store.(deskview.Store); ok && o.DeskView == nil {
		o.DeskView = deskview.New(ds, o.Now)
	}
	if o.AgentAdmin == nil {
		return nil, errors.New("dashboard: Options.AgentAdmin is required")
	}
	d := &Dashboard{Options: o, pages: map[string]*template.Template{}, stopping: make(chan struct{})}
	d.signins = signin.New()
	d.signups = ratelimit.NewKeyed(SignupsPerHour, time.Hour, 100_000)
	if err := d.parse(); err != nil {
		return nil, err
	}
	static, err := fs.Sub(dashweb.FS, "static")
	if err != nil {
		return nil, err
	}
	d.static = http.StripPrefix("/static/", http.FileServerFS(static))
	return d, nil
}

// funcs are the template helpers.
func funcs() template.FuncMap {
	return template.FuncMap{
		"t":     T,
		"tf":    tf,
		"time":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
		"iso":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"langs": func() []string { return languages },
		"eq2":   func(a, b any) bool { return a == b },
		"short": shorten,
		"stars": stars,
		// The insights page (insights.go).
		"outcomeColor":  outcomeColor,
		"percent":       percent,
		"firstResponse": firstResponse,
		"hasPrefix":     strings.HasPrefix,
		"list":          func(xs ...string) []string { return xs },
		"bidi":          bidi,        // outside text, bidi controls shown and isolated (bidi.go)
		"bidiText":      bidiText,    // the same where only text can go
		"htmlf":         sprintfHTML, // a message with bidi values in it
		// thumb names the visitor's thumbs on an AI answer (issue 20):
		// "up", "down", or "" when they gave none.
		"thumb": thumb,

		// The canned replies' page (canned.go).
		"cannedForm":  cannedForm,
		"cannedLangs": func() []string { return cannedLanguages },
		// sub hands a shared template (templates/parts) its language, its
		// list and one row of it.
		"sub": func(lang string, data any, row any) view { return view{Lang: lang, Data: data, Row: row} },
	}
}

func thumb(helpful *bool) string {
	switch {
	case helpful == nil:
		return ""
	case *helpful:
		return "up"
	}
	return "down"
}

// parse builds one template set per page: the layout plus the page.
func (d *Dashboard) parse() error {
	layout, err := template.New("layout.html").Funcs(funcs()).ParseFS(dashweb.FS, "templates/layout.html", "templates/parts/*.html")
	if err != nil {
		return err
	}
	pages, err := fs.Glob(dashweb.FS, "templates/pages/*.html")
	if err != nil {
		return err
	}
	for _, p := range pages {
		t, err := template.Must(layout.Clone()).ParseFS(dashweb.FS, p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(p[strings.LastIndex(p, "/")+1:], ".html")
		d.pages[name] = t
	}
	return nil
}

// view is what every page template gets.
type view struct {
	Lang  string
	User  *domain.User
	Title string
	Nav   string // the active section
	Flash string // a message key shown once
	Error string // an error message key
	// ErrorArgs fill the error message's verbs (a wait, for example).
	ErrorArgs []any
	Data      any
	Surge     string    // the surge banner's text, "" for none
	Hooks     bool      // the webhooks page exists (its nav link)
	Insights  bool      // the insights page exists (its nav link)
	Row       any       // one row of Data, for the shared templates (sub)
	Desk      *deskView // the user's presence; nil without a desk
}

// render writes a page. Pages are never cached and never framed.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	t, ok := d.pages[page]
	if !ok {
		d.Logger.Error("no such page template", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	v.Lang = language(r)
	v.Hooks = d.Webhooks != nil
	v.Insights = d.Insights != nil
	if u, ok := userFrom(r.Context()); ok {
		v.User = &u
		v.Surge = d.surgeBanner(r.Context(), v.Lang, u.AccountID)
		if d.Desk != nil {
			away, err := d.Desk.Away(r.Context(), u.AccountID, u.ID)
			if err != nil {
				d.Logger.Warn("reading presence failed", "user", u.ID, "err", err)
			}
			v.Desk = &deskView{Away: away}
		}
	}
	if v.Flash == "" {
		v.Flash = r.URL.Query().Get("flash")
		if !i18n.Has(v.Flash) {
			v.Flash = "" // only known messages, never echoed text
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := t.ExecuteTemplate(w, "layout.html", v); err != nil {
		d.Logger.Error("rendering page", "page", page, "err", err)
	}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type userKey struct{}

func userFrom(ctx context.Context) (domain.User, bool) {
	u, ok := ctx.Value(userKey{}).(domain.User)
	return u, ok
}

// user is the signed-in user of a request behind requireUser.
func user(r *http.Request) domain.User {
	u, _ := userFrom(r.Context())
	return u
}

// stars draws a rating of 1 to 5 as five stars, the rating's filled.
func stars(n int) string {
	n = max(0, min(n, 5))
	return strings.Repeat("★", n) + strings.Repeat("☆", 5-n)
}
