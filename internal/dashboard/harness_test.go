package dashboard

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"parley/internal/agent"
	"parley/internal/agentadmin"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/retention"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
)

// testDash is a dashboard on a fresh SQLite store behind a real HTTP
// server on loopback, with the routes as the server wires them (without
// the server's CSP and CSRF wrapper, which the server package tests).
type testDash struct {
	t     testing.TB
	path  string // the SQLite file
	d     *Dashboard
	st    store.Store
	chat  *chat.Service
	hub   *notify.Hub
	srv   *httptest.Server
	owner domain.User
	agent domain.Agent
	key   string
}

func newTestDash(t testing.TB, routes func(mux *http.ServeMux, d *Dashboard)) *testDash {
	t.Helper()
	ctx := context.Background()
	path := sqlitetest.Path(t)
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hub := notify.NewHub()
	quiet := slog.New(slog.DiscardHandler)
	kb := agent.NewKB(st, agent.KBOptions{})
	t.Cleanup(kb.Stop)
	c := chat.New(chat.Options{Store: st, Responder: kb, Notifier: hub, Logger: quiet})
	d, err := New(Options{Store: st, Chat: c, Notifier: hub, Signup: true, Logger: quiet, AgentAdmin: agentadmin.New(agentadmin.Options{Store: st}),
		Retention: &retention.Service{Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	routes(mux, d)
	td := &testDash{t: t, path: path, d: d, st: st, chat: c, hub: hub, srv: httptest.NewServer(mux)}
	t.Cleanup(td.srv.Close)
	t.Cleanup(d.Stop)
	td.owner = td.newUser("owner@example.com", "Olga Owner", "")
	td.agent, td.key = td.newAgent(td.owner.AccountID, "Helper")
	return td
}

// newUser creates an account (accountID "") with its owner, or an operator
// of accountID. The password is always "password1": nine characters, too
// short for a new password today, and such older passwords still sign in.
// It is hashed at bcrypt's least cost, so that tests making a hundred
// failed sign-ins stay fast (the cost is not what they test).
func (td *testDash) newUser(email, name, accountID string) domain.User {
	td.t.Helper()
	ctx := context.Background()
	h, _ := bcrypt.GenerateFromPassword([]byte("password1"), bcrypt.MinCost)
	hash := string(h)
	if accountID == "" {
		if _, err := td.st.CreateAccount(ctx, store.NewAccount{Email: email, Name: name, PasswordHash: hash, Limits: domain.Limits{MonthlyConversations: 1000}}); err != nil {
			td.t.Fatal(err)
		}
		u, err := td.st.UserByEmail(ctx, email)
		if err != nil {
			td.t.Fatal(err)
		}
		return u
	}
	u, err := td.st.CreateUser(ctx, store.NewUser{AccountID: accountID, Email: email, Name: name, PasswordHash: hash, Role: domain.UserOperator})
	if err != nil {
		td.t.Fatal(err)
	}
	return u
}

func (td *testDash) newAgent(accountID, name string) (domain.Agent, string) {
	td.t.Helper()
	key := secret.WidgetKey()
	a, err := td.st.CreateAgent(context.Background(), store.NewAgent{AccountID: accountID, ChatbotName: name, Key: key,
		Knowledge: []domain.KnowledgeEntry{{Question: "What are your opening hours?", Answer: "From 9 to 17."}}})
	if err != nil {
		td.t.Fatal(err)
	}
	return a, key
}

// browser is a client with its own cookie jar that does not follow
// redirects, so tests see them.
type browser struct {
	td *testDash
	c  *http.Client
}

func (td *testDash) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{td: td, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// browserFrom is a browser whose connections come from the loopback
// address ip (all of 127.0.0.0/8 is loopback on Linux), so the dashboard
// sees another client.
func (td *testDash) browserFrom(ip string) *browser {
	b := td.browser()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	td.t.Cleanup(tr.CloseIdleConnections)
	b.c.Transport = tr
	return b
}

// signedIn is a browser with a session of u.
func (td *testDash) signedIn(u domain.User) *browser {
	b := td.browser()
	if r := b.post("/signin", url.Values{"email": {u.Email}, "password": {"password1"}}); r.status != http.StatusSeeOther {
		td.t.Fatalf("sign in as %s: %d %s", u.Email, r.status, r.body)
	}
	return b
}

type page struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (b *browser) do(req *http.Request) page {
	b.td.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.td.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, body: string(body), location: res.Header.Get("Location"), header: res.Header}
}

func (b *browser) get(path string) page {
	b.td.t.Helper()
	req, _ := http.NewRequest("GET", b.td.srv.URL+path, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) page {
	b.td.t.Helper()
	req, _ := http.NewRequest("POST", b.td.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// allRoutes registers the dashboard's routes as internal/server does.
func allRoutes(mux *http.ServeMux, d *Dashboard) {
	mux.HandleFunc("GET /{$}", d.Home)
	mux.Handle("GET /static/", d.Static())
	mux.HandleFunc("GET /signin", d.SignInPage)
	mux.HandleFunc("POST /signin", d.SignIn)
	mux.HandleFunc("GET /signup", d.SignUpPage)
	mux.HandleFunc("POST /signup", d.SignUp)
	mux.HandleFunc("POST /signout", d.SignOut)
	mux.HandleFunc("POST /language", d.SetLanguage)
	mux.HandleFunc("GET /account/password", d.User(d.PasswordPage))
	mux.HandleFunc("POST /account/password", d.User(d.ChangePassword))
	mux.HandleFunc("GET /events", d.User(d.Events))
	mux.HandleFunc("GET /inbox", d.User(d.Inbox))
	mux.HandleFunc("GET /conversations/{id}", d.User(d.Conversation))
	mux.HandleFunc("POST /conversations/{id}/takeover", d.User(d.TakeOver))
	mux.HandleFunc("POST /conversations/{id}/release", d.User(d.Release))
	mux.HandleFunc("POST /conversations/{id}/reply", d.User(d.Reply))
	mux.HandleFunc("GET /conversations/{id}/visitor/export", d.Owner(d.ExportVisitor))
	mux.HandleFunc("GET /conversations/{id}/visitor/delete", d.Owner(d.DeleteVisitorPage))
	mux.HandleFunc("POST /conversations/{id}/visitor/delete", d.Owner(d.DeleteVisitor))
}
