package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// The canned replies' API: create, list, read, update, delete, with the
// rule's errors as JSON and another account's replies not found.
func TestCannedRepliesAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.api("POST", "/api/v1/canned-replies", map[string]any{"shortcut": "/Refund", "language": "en", "text": "Hi {{visitor.name|there}}"})
	if r.status != http.StatusCreated || r.str("shortcut") != "refund" || r.str("language") != "en" || !strings.HasPrefix(r.str("id"), "cr_") {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := r.str("id")
	if loc := r.header.Get("Location"); loc != "/api/v1/canned-replies/"+id {
		t.Fatalf("Location = %q", loc)
	}
	wantError(t, e.api("POST", "/api/v1/canned-replies", map[string]any{"shortcut": "refund", "language": "en", "text": "again"}), http.StatusConflict, "")
	wantError(t, e.api("POST", "/api/v1/canned-replies", map[string]any{"shortcut": "two words", "language": "en", "text": "x"}), http.StatusBadRequest, "")
	wantError(t, e.api("POST", "/api/v1/canned-replies", map[string]any{"shortcut": "ok", "language": "de", "text": "x"}), http.StatusBadRequest, "")
	wantError(t, e.api("POST", "/api/v1/canned-replies", map[string]any{"shortcut": "ok", "language": "en", "text": strings.Repeat("x", 2001)}), http.StatusBadRequest, "")
	wantError(t, e.api("POST", "/api/v1/canned-replies", map[string]any{"shortcut": "ok", "language": "en", "text": "x", "extra": 1}), http.StatusBadRequest, "")

	r = e.api("PATCH", "/api/v1/canned-replies/"+id, map[string]any{"shortcut": "refund", "language": "ro", "text": "Bună {{visitor.name}}"})
	if r.status != http.StatusOK || r.str("language") != "ro" || r.str("text") != "Bună {{visitor.name}}" {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	r = e.api("GET", "/api/v1/canned-replies", nil)
	list, _ := r.body["canned_replies"].([]any)
	if r.status != http.StatusOK || len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	if r := e.api("GET", "/api/v1/canned-replies/"+id, nil); r.status != http.StatusOK || r.str("text") != "Bună {{visitor.name}}" {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}

	// Another account sees none of it.
	_, other := e.newAccount("other-canned@example.com", e.account.Limits)
	as := func(method, path string, body any) response {
		return e.do(method, path, body, map[string]string{"Authorization": "Bearer " + other})
	}
	wantError(t, as("GET", "/api/v1/canned-replies/"+id, nil), http.StatusNotFound, "")
	wantError(t, as("PATCH", "/api/v1/canned-replies/"+id, map[string]any{"shortcut": "x", "language": "en", "text": "x"}), http.StatusNotFound, "")
	wantError(t, as("DELETE", "/api/v1/canned-replies/"+id, nil), http.StatusNotFound, "")
	if r := as("GET", "/api/v1/canned-replies", nil); len(r.body["canned_replies"].([]any)) != 0 {
		t.Fatalf("another account's list: %s", r.raw)
	}

	if r := e.api("DELETE", "/api/v1/canned-replies/"+id, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	wantError(t, e.api("GET", "/api/v1/canned-replies/"+id, nil), http.StatusNotFound, "")
}

// Private notes never reach the visitor: after notes are written through
// the API and the dashboard, no widget route (init, chat, poll, long poll)
// and neither visitor export holds their text; the dashboard's
// conversation page and the notes API do, with the "Private note" label.
func TestNotesNeverReachTheWidget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	owner, err := e.store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	session := secret.ID("", 32)
	if err := e.store.CreateSession(ctx, owner.ID, secret.HashToken(session), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	form := map[string]string{"Cookie": "parley_session=" + session, "Sec-Fetch-Site": "same-origin",
		"Content-Type": "application/x-www-form-urlencoded"}

	conv, visitor := e.start()
	e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "visitor_id": visitor, "text": "I want a refund"}, nil)
	start := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, nil).str("cursor")
	const apiNote, dashNote = "SECRET-API-NOTE card ends 4242", "SECRET-DASH-NOTE refund approved"
	r := e.api("POST", "/api/v1/conversations/"+conv+"/notes", map[string]any{"text": apiNote})
	if r.status != http.StatusCreated || r.str("text") != apiNote || r.str("author_name") != "test" {
		t.Fatalf("API note: %d %s", r.status, r.raw)
	}
	noteID := r.str("id")
	if r := e.do("POST", "/conversations/"+conv+"/notes", "note="+url.QueryEscape(dashNote), form); r.status != http.StatusSeeOther {
		t.Fatalf("dashboard note: %d %s", r.status, r.raw)
	}
	wantError(t, e.api("POST", "/api/v1/conversations/"+conv+"/notes", map[string]any{"text": " "}), http.StatusBadRequest, "")
	wantError(t, e.api("POST", "/api/v1/conversations/cv_missing/notes", map[string]any{"text": "x"}), http.StatusNotFound, "")
	// An operator reply after the notes: the widget gets it, not them.
	e.api("POST", "/api/v1/conversations/"+conv+"/messages", map[string]any{"text": "Operator reply"})

	r = e.api("GET", "/api/v1/conversations/"+conv+"/notes", nil)
	notes, _ := r.body["notes"].([]any)
	if r.status != http.StatusOK || len(notes) != 2 || notes[0].(map[string]any)["text"] != apiNote || notes[1].(map[string]any)["author_name"] != "Ana" {
		t.Fatalf("notes: %d %s", r.status, r.raw)
	}
	page := e.do("GET", "/conversations/"+conv, nil, map[string]string{"Cookie": "parley_session=" + session})
	if !strings.Contains(string(page.raw), dashNote) || !strings.Contains(string(page.raw), `class="note-label">Private note<`) {
		t.Fatalf("the conversation page lacks the note: %s", page.raw)
	}
	ro := e.do("GET", "/conversations/"+conv, nil, map[string]string{"Cookie": "parley_session=" + session + "; parley_lang=ro"})
	if !strings.Contains(string(ro.raw), "Notă privată") {
		t.Fatal("the Romanian page lacks the label")
	}

	q := "key=" + e.key + "&conversation_id=" + conv + "&visitor_id=" + visitor
	var seen []response
	seen = append(seen,
		e.do("POST", "/api/widget/init", map[string]any{"key": e.key, "visitor_id": visitor}, nil),
		e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "visitor_id": visitor, "text": "still there?"}, nil),
		e.do("GET", "/api/widget/poll?"+q, nil, nil),
		e.do("GET", "/api/widget/poll?"+q+"&after="+start, nil, nil),
		e.do("GET", "/api/widget/poll?"+q+"&after="+start+"&wait=1", nil, nil),
		e.api("GET", "/api/v1/visitors/"+visitor+"/export", nil),
		e.do("GET", "/conversations/"+conv+"/visitor/export", nil, map[string]string{"Cookie": "parley_session=" + session}),
	)
	sawReply := false
	for i, r := range seen {
		if r.status != http.StatusOK {
			t.Fatalf("route %d: %d %s", i, r.status, r.raw)
		}
		body := string(r.raw)
		if strings.Contains(body, "SECRET-") || strings.Contains(body, noteID) {
			t.Fatalf("route %d shows a note: %s", i, body)
		}
		sawReply = sawReply || strings.Contains(body, "Operator reply")
	}
	if !sawReply {
		t.Fatal("no route showed the operator's reply: the check reads nothing")
	}
}

// The dashboard's canned replies page: owners add, edit and delete (each
// in the audit log, by their e-mail); operators see the list without the
// forms and get 403 on every change; the rule's errors show on the page.
func TestCannedRepliesDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	session := func(email string, role domain.UserRole) string {
		u, err := e.store.UserByEmail(ctx, email)
		if err != nil {
			u, err = e.store.CreateUser(ctx, store.NewUser{AccountID: e.account.ID, Email: email, Name: "Op", PasswordHash: "x", Role: role})
			if err != nil {
				t.Fatal(err)
			}
		}
		s := secret.ID("", 32)
		if err := e.store.CreateSession(ctx, u.ID, secret.HashToken(s), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		return s
	}
	owner, op := session("owner@example.com", domain.UserOwner), session("op-canned@example.com", domain.UserOperator)
	form := func(s string) map[string]string {
		return map[string]string{"Cookie": "parley_session=" + s, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/x-www-form-urlencoded"}
	}
	body := func(shortcut, lang, text string) string {
		return url.Values{"shortcut": {shortcut}, "language": {lang}, "text": {text}}.Encode()
	}
	if r := e.do("POST", "/canned", body("/Refund", "en", "Hi {{visitor.name}}"), form(owner)); r.status != http.StatusSeeOther || r.header.Get("Location") != "/canned?done=created" {
		t.Fatalf("owner create: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/canned", body("refund", "en", "again"), form(owner)); r.status != http.StatusConflict || !strings.Contains(string(r.raw), "A canned reply with this shortcut and language exists.") {
		t.Fatalf("a second refund/en: %d", r.status)
	}
	if r := e.do("POST", "/canned", body("two words", "en", "x"), form(owner)); r.status != http.StatusBadRequest || !strings.Contains(string(r.raw), `value="two words"`) {
		t.Fatalf("a bad shortcut: %d (the draft must stay)", r.status)
	}
	list, err := e.store.CannedReplies(ctx, e.account.ID)
	if err != nil || len(list) != 1 || list[0].Shortcut != "refund" {
		t.Fatalf("stored: %+v %v", list, err)
	}
	id := list[0].ID
	if r := e.do("POST", "/canned/"+id, body("refund", "ro", "Bună"), form(owner)); r.status != http.StatusSeeOther {
		t.Fatalf("owner update: %d %s", r.status, r.raw)
	}

	page := e.do("GET", "/canned", nil, map[string]string{"Cookie": "parley_session=" + op})
	if page.status != http.StatusOK || !strings.Contains(string(page.raw), "/refund") || strings.Contains(string(page.raw), `action="/canned"`) {
		t.Fatalf("the operator's page: %d", page.status)
	}
	for _, path := range []string{"/canned", "/canned/" + id, "/canned/" + id + "/delete"} {
		if r := e.do("POST", path, body("x", "en", "x"), form(op)); r.status != http.StatusForbidden {
			t.Fatalf("operator POST %s: %d", path, r.status)
		}
	}
	if r := e.do("POST", "/canned/"+id+"/delete", "", form(owner)); r.status != http.StatusSeeOther {
		t.Fatalf("owner delete: %d %s", r.status, r.raw)
	}
	entries, err := e.store.AuditEntries(ctx, e.account.ID, store.AuditFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range entries {
		if strings.HasPrefix(en.Action, "canned.") {
			got = append(got, en.Action+" "+en.Actor)
		}
	}
	if want := "canned.delete owner@example.com,canned.update owner@example.com,canned.create owner@example.com"; strings.Join(got, ",") != want {
		t.Fatalf("audit = %q, want %q", got, want)
	}
}
