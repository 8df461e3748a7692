package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"parley/internal/domain"
)

// The dashboard keeps the instance's bounds as the API does, says in the
// owner's language what was refused (413 for knowledge, 403 for agents),
// keeps what was typed, and shows how much room is left.
func TestDashboardKnowledgeBounds(t *testing.T) {
	t.Parallel()
	e := newBoundedAgEnv(t, domain.Bounds{Knowledge: domain.KnowledgeLimits{MaxItems: 2, MaxChars: 1000}, MaxAgents: 2})
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	base := "/agents/" + a.ID + "/knowledge"

	if p := e.post(base, url.Values{"question": {"Do you ship?"}, "answer": {"Yes."}}); p.status != http.StatusSeeOther {
		t.Fatalf("add within the bounds: %d %s", p.status, p.body)
	}
	agMustContain(t, "agent page", e.get("/agents/"+a.ID).body, "In use: 1 of 2 items, 16 of 1,000 characters")

	// A document whose file would pass the characters: 413, the typed
	// title kept.
	p := e.upload(base, map[string]string{"kind": "document", "title": "Big handbook"}, "big.md", []byte(strings.Repeat("x", 990)))
	if p.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("document past the characters: %d", p.status)
	}
	agMustContain(t, "refused document", p.body, "the agent&#39;s knowledge would be longer than it may be", `value="Big handbook"`)

	if p := e.post(base, url.Values{"question": {"Returns?"}, "answer": {"30 days."}}); p.status != http.StatusSeeOther {
		t.Fatalf("second item: %d", p.status)
	}
	p = e.post(base, url.Values{"question": {"Typed third"}, "answer": {"Refused."}})
	if p.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("third item: %d", p.status)
	}
	agMustContain(t, "refused item", p.body, "already has as many knowledge items as it may have", ">Typed third</textarea>")

	// An edit that would pass the characters: the edit form open again.
	item := e.knowledge(a)[0]
	p = e.post(base+"/"+item.ID, url.Values{"question": {"Do you ship?"}, "answer": {strings.Repeat("y", 990)}})
	if p.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("edit past the characters: %d", p.status)
	}
	agMustContain(t, "refused edit", p.body, "would be longer than it may be", "<details open>")

	// In Romanian and Russian.
	for lang, want := range map[string]string{
		"ro": "Acest agent are deja numărul maxim de elemente de cunoștințe.",
		"ru": "У этого агента уже максимальное число записей в базе знаний.",
	} {
		r := httptest.NewRequest("POST", "http://example.com"+base, strings.NewReader(url.Values{"question": {"q"}, "answer": {"a"}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: langCookie, Value: lang})
		if p := e.send(e.session, r); p.status != http.StatusRequestEntityTooLarge || !strings.Contains(p.body, want) {
			t.Errorf("%s: %d, want 413 with %q", lang, p.status, want)
		}
	}

	// Agents: Helper and one more.
	if p := e.post("/agents", url.Values{"name": {"Second"}}); p.status != http.StatusSeeOther {
		t.Fatalf("second agent: %d", p.status)
	}
	p = e.post("/agents", url.Values{"name": {"Third"}})
	if p.status != http.StatusForbidden {
		t.Fatalf("third agent: %d", p.status)
	}
	agMustContain(t, "refused agent", p.body, "This account already has as many agents as it may have.", `value="Third"`)
}

func TestGroupDigits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n          int
		lang, want string
	}{
		{7, "en", "7"}, {1000, "en", "1,000"}, {1000000, "en", "1,000,000"}, {123456, "ro", "123.456"}, {2000000, "ru", "2\u00a0000\u00a0000"},
	} {
		if got := groupDigits(tt.n, tt.lang); got != tt.want {
			t.Errorf("groupDigits(%d, %s) = %q, want %q", tt.n, tt.lang, got, tt.want)
		}
	}
}
