package storetest

import (
	"fmt"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testVisitorDetails: the context is stored and replaced, the page
// history skips repeats, is latest first and bounded to
// store.MaxPageHistory, unknown conversations record nothing, and the
// visitor's first seen and count are per account.
func testVisitorDetails(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)

	v, err := s.VisitorContext(ctx, c.ID)
	noErr(t, "VisitorContext (none)", err)
	if v.UserAgent != "" || len(v.Pages) != 0 {
		t.Fatalf("new conversation: %+v, want the zero context", v)
	}
	want := store.VisitorContext{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0", Language: "ro-RO", TimeZone: "Europe/Bucharest", Referrer: "https://search.example/?q=ü"}
	noErr(t, "SetVisitorContext", s.SetVisitorContext(ctx, c.ID, want))
	want.Language = "ru"
	noErr(t, "SetVisitorContext again", s.SetVisitorContext(ctx, c.ID, want))
	v, err = s.VisitorContext(ctx, c.ID)
	noErr(t, "VisitorContext", err)
	if v.UserAgent != want.UserAgent || v.Language != "ru" || v.TimeZone != want.TimeZone || v.Referrer != want.Referrer {
		t.Errorf("context %+v, want %+v", v, want)
	}

	page := func(url string, at time.Time) {
		t.Helper()
		noErr(t, "RecordPage "+url, s.RecordPage(ctx, c.ID, url, at))
	}
	page("https://shop.example/", base)
	page("https://shop.example/", base.Add(time.Second)) // the same page again: not recorded
	page("https://shop.example/pricing", base.Add(2*time.Second))
	page("https://shop.example/", base.Add(3*time.Second)) // back: recorded
	v, err = s.VisitorContext(ctx, c.ID)
	noErr(t, "VisitorContext pages", err)
	if len(v.Pages) != 3 || v.Pages[0].URL != "https://shop.example/" || v.Pages[1].URL != "https://shop.example/pricing" || v.Pages[2].URL != "https://shop.example/" {
		t.Fatalf("pages %+v", v.Pages)
	}
	sameTime(t, "latest page", v.Pages[0].At, base.Add(3*time.Second))
	sameTime(t, "first page", v.Pages[2].At, base)
	for i := range store.MaxPageHistory + 5 {
		page(fmt.Sprintf("https://shop.example/p%d", i), base.Add(time.Minute+time.Duration(i)*time.Second))
	}
	v, err = s.VisitorContext(ctx, c.ID)
	noErr(t, "VisitorContext bounded", err)
	if len(v.Pages) != store.MaxPageHistory {
		t.Fatalf("%d pages, want %d", len(v.Pages), store.MaxPageHistory)
	}
	if v.Pages[0].URL != fmt.Sprintf("https://shop.example/p%d", store.MaxPageHistory+4) || v.Pages[store.MaxPageHistory-1].URL != "https://shop.example/p5" {
		t.Errorf("bounded pages: first %q, last %q", v.Pages[0].URL, v.Pages[store.MaxPageHistory-1].URL)
	}

	// Another conversation has its own (none); an unknown one records
	// nothing and is no error.
	other := f.conversation(t, s, base)
	if v, err := s.VisitorContext(ctx, other.ID); err != nil || v.UserAgent != "" || len(v.Pages) != 0 {
		t.Errorf("other conversation: %+v, %v", v, err)
	}
	ghost := secret.ConversationID()
	noErr(t, "SetVisitorContext unknown", s.SetVisitorContext(ctx, ghost, want))
	noErr(t, "RecordPage unknown", s.RecordPage(ctx, ghost, "https://x.example/", base))
	if v, err := s.VisitorContext(ctx, ghost); err != nil || v.UserAgent != "" || len(v.Pages) != 0 {
		t.Errorf("unknown conversation: %+v, %v", v, err)
	}
	if err := s.RecordPage(ctx, c.ID, "bad\x00url", base); err == nil {
		t.Error("RecordPage with a NUL: no error")
	}

	// First seen and count: the visitor's conversations in this account.
	nc := f.newConversation(base.Add(time.Hour))
	nc.VisitorID = c.VisitorID
	_, err = s.CreateConversation(ctx, nc)
	noErr(t, "CreateConversation same visitor", err)
	first, n, err := s.VisitorSeen(ctx, f.account.ID, c.VisitorID)
	noErr(t, "VisitorSeen", err)
	if n != 2 {
		t.Errorf("VisitorSeen count %d, want 2", n)
	}
	sameTime(t, "first seen", first, base)
	acc2 := setup(t, s, many)
	if first, n, err := s.VisitorSeen(ctx, acc2.account.ID, c.VisitorID); err != nil || n != 0 || !first.IsZero() {
		t.Errorf("VisitorSeen other account: %v, %d, %v", first, n, err)
	}
}

// testReadMarks: unread counts are the visitor's messages after the
// user's mark, per user; a mark never moves back; unknown users and
// conversations record nothing.
func testReadMarks(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ana := newUser(t, s, f.account.ID, domain.UserOwner)
	bob := newUser(t, s, f.account.ID, domain.UserOperator)
	c1 := f.conversation(t, s, base)
	c2 := f.conversation(t, s, base)
	c3 := f.conversation(t, s, base) // no messages
	add := func(c domain.Conversation, role domain.Role, text string) domain.Message {
		t.Helper()
		m, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: role, Text: text, CreatedAt: base})
		noErr(t, "AddMessage", err)
		return m
	}
	add(c1, domain.RoleVisitor, "hi")
	add(c1, domain.RoleAI, "hello")
	m3 := add(c1, domain.RoleVisitor, "a person please")
	add(c2, domain.RoleVisitor, "one")
	ids := []string{c1.ID, c2.ID, c3.ID}
	counts := func(u domain.User) map[string]int {
		t.Helper()
		got, err := s.UnreadCounts(ctx, u.ID, ids)
		noErr(t, "UnreadCounts", err)
		return got
	}
	if got := counts(ana); len(got) != 2 || got[c1.ID] != 2 || got[c2.ID] != 1 {
		t.Fatalf("unread before any mark: %v", got)
	}
	noErr(t, "MarkRead", s.MarkRead(ctx, ana.ID, c1.ID, m3.Seq))
	if got := counts(ana); len(got) != 1 || got[c2.ID] != 1 {
		t.Errorf("ana after reading c1: %v", got)
	}
	if got := counts(bob); got[c1.ID] != 2 {
		t.Errorf("bob's marks are his own: %v", got)
	}
	noErr(t, "MarkRead back", s.MarkRead(ctx, ana.ID, c1.ID, 1))
	add(c1, domain.RoleVisitor, "still there?")
	add(c1, domain.RoleOperator, "yes")
	if got := counts(ana); got[c1.ID] != 1 {
		t.Errorf("after a new visitor message (and a mark that may not move back): %v", got)
	}
	if got, err := s.UnreadCounts(ctx, ana.ID, nil); err != nil || len(got) != 0 {
		t.Errorf("no conversations: %v, %v", got, err)
	}
	noErr(t, "MarkRead unknown user", s.MarkRead(ctx, "u_nope", c1.ID, m3.Seq))
	noErr(t, "MarkRead unknown conversation", s.MarkRead(ctx, ana.ID, secret.ConversationID(), m3.Seq))
}
