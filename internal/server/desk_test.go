package server

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// The operator desk (issue 19) through HTTP: the management API's and the
// dashboard's routes as the server wires them.

// deskSession signs a user in and returns the dashboard form headers.
func (e *env) deskSession(u domain.User) map[string]string {
	e.t.Helper()
	session := secret.ID("", 32)
	if err := e.store.CreateSession(context.Background(), u.ID, secret.HashToken(session), time.Now().Add(time.Hour)); err != nil {
		e.t.Fatal(err)
	}
	return map[string]string{"Cookie": "parley_session=" + session, "Sec-Fetch-Site": "same-origin",
		"Content-Type": "application/x-www-form-urlencoded"}
}

func (e *env) deskOperator(name string) domain.User {
	e.t.Helper()
	u, err := e.store.CreateUser(context.Background(), store.NewUser{AccountID: e.account.ID, Email: strings.ToLower(name) + "@example.com",
		Name: name, PasswordHash: "x", Role: domain.UserOperator})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

func listIDs(t *testing.T, r response) []string {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	var ids []string
	for _, c := range r.body["conversations"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	return ids
}

func TestDeskAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ana := e.deskOperator("Ana")
	a, _ := e.start()
	b, _ := e.start()

	r := e.api("POST", "/api/v1/conversations/"+a+"/resolve", nil)
	if r.status != 200 || r.str("status") != "resolved" || r.body["changed"] != true {
		t.Fatalf("resolve: %d %s", r.status, r.raw)
	}
	if r = e.api("POST", "/api/v1/conversations/"+a+"/resolve", nil); r.body["changed"] != false {
		t.Fatalf("resolve again: %s", r.raw)
	}
	if ids := listIDs(t, e.api("GET", "/api/v1/conversations?status=resolved", nil)); len(ids) != 1 || ids[0] != a {
		t.Fatalf("status=resolved: %v", ids)
	}
	if ids := listIDs(t, e.api("GET", "/api/v1/conversations?status=open", nil)); len(ids) != 1 || ids[0] != b {
		t.Fatalf("status=open: %v", ids)
	}
	// The list without a status is every conversation, as before.
	if ids := listIDs(t, e.api("GET", "/api/v1/conversations", nil)); len(ids) != 2 {
		t.Fatalf("no status: %v", ids)
	}
	if r = e.api("GET", "/api/v1/conversations?status=closed", nil); r.status != 400 || r.str("error") == "" {
		t.Fatalf("bad status: %d %s", r.status, r.raw)
	}
	// A visitor's message reopens it.
	e.chatText(a, "one more thing", "en")
	if r = e.api("GET", "/api/v1/conversations/"+a, nil); r.str("status") != "open" {
		t.Fatalf("after a visitor message: %s", r.raw)
	}
	e.api("POST", "/api/v1/conversations/"+a+"/resolve", nil)
	if r = e.api("POST", "/api/v1/conversations/"+a+"/reopen", nil); r.status != 200 || r.body["changed"] != true || r.str("status") != "open" {
		t.Fatalf("reopen: %d %s", r.status, r.raw)
	}

	// Assign.
	r = e.api("POST", "/api/v1/conversations/"+b+"/assign", map[string]any{"user_id": ana.ID})
	if r.status != 200 || r.str("assignee_id") != ana.ID || r.str("assignee_name") != "Ana" || r.str("mode") != "human" {
		t.Fatalf("assign: %d %s", r.status, r.raw)
	}
	if ids := listIDs(t, e.api("GET", "/api/v1/conversations?assignee="+ana.ID, nil)); len(ids) != 1 || ids[0] != b {
		t.Fatalf("assignee=ana: %v", ids)
	}
	if ids := listIDs(t, e.api("GET", "/api/v1/conversations?assignee=none", nil)); len(ids) != 1 || ids[0] != a {
		t.Fatalf("assignee=none: %v", ids)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"user_id": "usr_nobody"}} {
		if r = e.api("POST", "/api/v1/conversations/"+b+"/assign", body); r.status != 400 || r.str("error") == "" {
			t.Fatalf("assign %v: %d %s", body, r.status, r.raw)
		}
	}
	// Another account's conversation is not found.
	other, otherToken := e.newAccount("other@example.com", domain.Limits{MonthlyConversations: 10})
	_ = other
	for _, p := range []string{"/resolve", "/reopen"} {
		r = e.do("POST", "/api/v1/conversations/"+a+p, nil, map[string]string{"Authorization": "Bearer " + otherToken})
		if r.status != 404 {
			t.Fatalf("another account's %s: %d %s", p, r.status, r.raw)
		}
	}

	// Settings and presence.
	r = e.api("GET", "/api/v1/desk", nil)
	if r.status != 200 || r.body["auto_assign"] != false || r.body["operators_online"] != float64(0) {
		t.Fatalf("GET desk: %d %s", r.status, r.raw)
	}
	r = e.api("PATCH", "/api/v1/desk", map[string]any{"auto_assign": true, "assign_cap": 3})
	if r.status != 200 || r.body["auto_assign"] != true || r.body["assign_cap"] != float64(3) {
		t.Fatalf("PATCH desk: %d %s", r.status, r.raw)
	}
	if r = e.api("PATCH", "/api/v1/desk", map[string]any{"assign_cap": -1}); r.status != 400 {
		t.Fatalf("PATCH desk cap -1: %d %s", r.status, r.raw)
	}
	// Ana opens the dashboard: online.
	if r = e.do("POST", "/presence", "", e.deskSession(ana)); r.status != http.StatusNoContent {
		t.Fatalf("presence: %d %s", r.status, r.raw)
	}
	r = e.api("GET", "/api/v1/desk", nil)
	if r.body["operators_online"] != float64(1) {
		t.Fatalf("after a heartbeat: %s", r.raw)
	}

	// The audit log has the desk's actions.
	log, _ := e.audit("", e.token)
	seen := map[string]bool{}
	for _, en := range log.Entries {
		seen[en.Action] = true
	}
	for _, want := range []string{"conversation.resolve", "conversation.reopen", "conversation.assign"} {
		if !seen[want] {
			t.Fatalf("audit log lacks %s: %+v", want, log.Entries)
		}
	}
}

func TestDeskDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	owner, err := e.store.UserByEmail(context.Background(), "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ana := e.deskOperator("Ana")
	own, op := e.deskSession(owner), e.deskSession(ana)
	a, _ := e.start()
	b, _ := e.start()

	// The owner assigns a to Ana; Ana's "mine" lists it, the owner's not.
	r := e.do("POST", "/conversations/"+a+"/assign", url.Values{"user_id": {ana.ID}}.Encode(), own)
	if r.status != http.StatusSeeOther {
		t.Fatalf("assign: %d %s", r.status, r.raw)
	}
	if r = e.do("GET", "/inbox?view=mine", nil, op); !strings.Contains(string(r.raw), a) || strings.Contains(string(r.raw), b) {
		t.Fatalf("Ana's mine: %s", r.raw)
	}
	if r = e.do("GET", "/inbox?view=mine", nil, own); strings.Contains(string(r.raw), a) {
		t.Fatal("the owner's mine lists Ana's conversation")
	}
	if r = e.do("GET", "/inbox?view=unassigned", nil, own); !strings.Contains(string(r.raw), b) || strings.Contains(string(r.raw), a) {
		t.Fatalf("unassigned: %s", r.raw)
	}
	// An operator cannot assign.
	if r = e.do("POST", "/conversations/"+b+"/assign", url.Values{"user_id": {ana.ID}}.Encode(), op); r.status != http.StatusForbidden && r.status != http.StatusNotFound {
		t.Fatalf("an operator's assign: %d", r.status)
	}
	// Assigning to no one of the team: 400 with the page.
	if r = e.do("POST", "/conversations/"+b+"/assign", url.Values{"user_id": {"usr_nobody"}}.Encode(), own); r.status != http.StatusBadRequest {
		t.Fatalf("assign to nobody: %d", r.status)
	}

	// Ana resolves a: it leaves the default list and shows under resolved.
	if r = e.do("POST", "/conversations/"+a+"/resolve", "", op); r.status != http.StatusSeeOther {
		t.Fatalf("resolve: %d %s", r.status, r.raw)
	}
	if r = e.do("GET", "/inbox", nil, op); strings.Contains(string(r.raw), a) || !strings.Contains(string(r.raw), b) {
		t.Fatal("the default inbox lists a resolved conversation")
	}
	if r = e.do("GET", "/inbox?view=resolved", nil, op); !strings.Contains(string(r.raw), a) {
		t.Fatal("view=resolved does not list it")
	}
	if r = e.do("GET", "/conversations/"+a, nil, op); !strings.Contains(string(r.raw), `id="desk-reopen"`) {
		t.Fatal("a resolved conversation's page has no reopen button")
	}
	if r = e.do("POST", "/conversations/"+a+"/reopen", "", op); r.status != http.StatusSeeOther {
		t.Fatalf("reopen: %d", r.status)
	}
	if r = e.do("GET", "/inbox", nil, op); !strings.Contains(string(r.raw), a) {
		t.Fatal("a reopened conversation is not in the default list")
	}

	// Away: the header says so, and Ana does not count as online.
	if r = e.do("POST", "/presence", "", op); r.status != http.StatusNoContent {
		t.Fatalf("presence: %d", r.status)
	}
	if n, _ := e.desk.OperatorsOnline(context.Background(), e.account.ID); n != 1 {
		t.Fatalf("online after a heartbeat: %d", n)
	}
	r = e.do("POST", "/presence/away", url.Values{"away": {"1"}, "back": {"/inbox?view=mine"}}.Encode(), op)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/inbox?view=mine" {
		t.Fatalf("away: %d %s", r.status, r.header.Get("Location"))
	}
	if n, _ := e.desk.OperatorsOnline(context.Background(), e.account.ID); n != 0 {
		t.Fatalf("online while away: %d", n)
	}
	if r = e.do("GET", "/inbox", nil, op); !strings.Contains(string(r.raw), "presence-away") {
		t.Fatal("the header does not show away")
	}
	// back elsewhere is refused for the inbox.
	r = e.do("POST", "/presence/away", url.Values{"away": {"0"}, "back": {"//evil.example/"}}.Encode(), op)
	if r.header.Get("Location") != "/inbox" {
		t.Fatalf("away with a foreign back: %s", r.header.Get("Location"))
	}

	// The owner turns auto-assign on; a visitor asking for a person goes
	// to Ana (online, under the cap).
	r = e.do("POST", "/team/desk", url.Values{"auto_assign": {"1"}, "assign_cap": {"5"}}.Encode(), own)
	if r.status != http.StatusSeeOther {
		t.Fatalf("desk settings: %d %s", r.status, r.raw)
	}
	if r = e.do("POST", "/team/desk", url.Values{"assign_cap": {"-3"}}.Encode(), own); r.status != http.StatusBadRequest {
		t.Fatalf("bad cap: %d", r.status)
	}
	c, _ := e.start()
	e.chatText(c, "Talk to a human", "en")
	got, err := e.store.Conversation(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got.AssigneeID != ana.ID || got.Mode != domain.ModeHuman {
		t.Fatalf("auto-assign: %+v", got)
	}
}

// The desk in the split inbox (the merge of the desk's status and views
// with the split view): the Show select is the list's first filter on the
// inbox and beside a conversation, kept on the rows' links; the pinned
// "waiting for a human" rows follow the view; the conversation's page
// has Resolve (bound to the e key) and, for owners, Assign to.
func TestDeskSplitView(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	owner, err := e.store.UserByEmail(context.Background(), "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ana := e.deskOperator("Ana")
	own, op := e.deskSession(owner), e.deskSession(ana)
	waiting, _ := e.start()
	if _, err := e.store.SetWaiting(context.Background(), waiting, true); err != nil {
		t.Fatal(err)
	}
	mine, _ := e.start()
	if r := e.do("POST", "/conversations/"+mine+"/assign", url.Values{"user_id": {ana.ID}}.Encode(), own); r.status != http.StatusSeeOther {
		t.Fatalf("assign: %d %s", r.status, r.raw)
	}

	// The default view pins the waiting one; Ana's Mine does not (it is
	// not hers), and lists hers with her name.
	inbox := string(e.do("GET", "/inbox", nil, op).raw)
	if !strings.Contains(inbox, `<tbody class="pinned"`) || !strings.Contains(inbox, `data-id="`+waiting+`"`) {
		t.Fatal("the default view does not pin the waiting conversation")
	}
	for _, want := range []string{`<select name="view" id="inbox-view">`, `<option value="" selected>Open</option>`} {
		if !strings.Contains(inbox, want) {
			t.Errorf("the inbox lacks %q", want)
		}
	}
	mineView := string(e.do("GET", "/inbox?view=mine", nil, op).raw)
	if strings.Contains(mineView, `data-id="`+waiting+`"`) || strings.Contains(mineView, `<tbody class="pinned"`) {
		t.Error("Mine pins a waiting conversation that is not Ana's")
	}
	if !regexp.MustCompile(`<span class="assignee">(<bdi[^>]*>)?Ana<`).MatchString(mineView) {
		t.Error("Mine's row does not name Ana")
	}
	for _, want := range []string{`data-id="` + mine + `"`, `<option value="mine" selected>`,
		`href="/conversations/` + mine + `?view=mine"`} {
		if !strings.Contains(mineView, want) {
			t.Errorf("Mine lacks %q", want)
		}
	}

	// Beside the conversation: the list keeps the view; the page has the
	// resolve form bound to e and, for the owner, the assign select.
	conv := string(e.do("GET", "/conversations/"+mine+"?view=mine", nil, own).raw)
	for _, want := range []string{`class="desk has-open"`, `<option value="mine" selected>`, `href="/inbox?view=mine"`,
		`<form method="post" action="/conversations/` + mine + `/resolve" data-key="e">`, `id="assign-user"`, `data-presence="/presence"`} {
		if !strings.Contains(conv, want) {
			t.Errorf("the conversation's page lacks %q", want)
		}
	}
	if strings.Contains(string(e.do("GET", "/conversations/"+mine, nil, op).raw), `id="assign-user"`) {
		t.Error("an operator sees the assign select")
	}
	// Resolved: gone from the default list, in Resolved with its badge,
	// and its page offers Reopen (no e binding left).
	if r := e.do("POST", "/conversations/"+mine+"/resolve", "", op); r.status != http.StatusSeeOther {
		t.Fatalf("resolve: %d", r.status)
	}
	if strings.Contains(string(e.do("GET", "/inbox", nil, op).raw), `data-id="`+mine+`"`) {
		t.Error("the default view lists the resolved conversation")
	}
	resolved := string(e.do("GET", "/inbox?view=resolved", nil, op).raw)
	if !strings.Contains(resolved, `data-id="`+mine+`"`) || !strings.Contains(resolved, `<span class="badge resolved">Resolved</span>`) || strings.Contains(resolved, `data-id="`+waiting+`"`) {
		t.Error("Resolved: the resolved row or its badge missing, or an open one listed")
	}
	page := string(e.do("GET", "/conversations/"+mine, nil, op).raw)
	if !strings.Contains(page, `id="desk-reopen"`) || strings.Contains(page, `data-key="e"`) {
		t.Error("a resolved conversation's page: no Reopen, or still a form bound to e")
	}
}
