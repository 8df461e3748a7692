package dashboard

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
)

// The split inbox (issue 19): waiting conversations pinned on top with
// how long they have waited, unread counts per operator that opening a
// conversation clears, and the conversation's page holding the list
// (with that conversation marked open) and the visitor's details.
func TestDeskInbox(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := context.Background()
	start := func(text string, in chat.InitInput) string {
		t.Helper()
		in.Key = td.key
		res, err := td.chat.Init(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(text, "|") {
			if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: res.ConversationID, Text: line, PageURL: "https://shop.example/pricing"}); err != nil {
				t.Fatal(err)
			}
		}
		return res.ConversationID
	}
	waiting := start("where is my order", chat.InitInput{PageURL: "https://shop.example/"})
	if _, err := td.st.SetWaiting(ctx, waiting, true); err != nil {
		t.Fatal(err)
	}
	busy := start("one|two", chat.InitInput{PageURL: "https://shop.example/", Visitor: chat.VisitorInfo{
		UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		Language:  "ro-RO", TimeZone: "Europe/Bucharest", Referrer: "https://search.example/results",
	}})
	newest := start("hello", chat.InitInput{})
	// The built-in agent, knowing nothing, asks for a human after two
	// misses: only the first conversation waits here.
	if _, err := td.st.SetWaiting(ctx, busy, false); err != nil {
		t.Fatal(err)
	}
	td.d.Now = func() time.Time { return time.Now().Add(7 * time.Minute) }

	owner := td.signedIn(td.owner)
	inbox := owner.get("/inbox").body
	// The waiting one is first, in the pinned group, though it is the oldest.
	firstRow := regexp.MustCompile(`<tr data-id="([^"]+)"`).FindStringSubmatch(inbox)
	if firstRow == nil || firstRow[1] != waiting {
		t.Fatalf("first row %v, want the waiting conversation %s", firstRow, waiting)
	}
	if !strings.Contains(inbox, `<tbody class="pinned"`) || !strings.Contains(inbox, "for 7 min") {
		t.Error("the waiting conversation is not pinned with how long it waited")
	}
	if n := strings.Count(inbox, `data-id="`+waiting+`"`); n != 1 {
		t.Errorf("the waiting conversation is listed %d times", n)
	}
	unread := func(body, id string) string {
		t.Helper()
		m := regexp.MustCompile(`(?s)<tr data-id="` + id + `".*?</tr>`).FindString(body)
		if m == "" {
			t.Fatalf("no row for %s", id)
		}
		if u := regexp.MustCompile(`<span class="unread"[^>]*>(\d+)`).FindStringSubmatch(m); u != nil {
			return u[1]
		}
		return ""
	}
	if got := unread(inbox, busy); got != "2" {
		t.Errorf("unread of the conversation with two visitor messages: %q, want 2", got)
	}
	if got := unread(inbox, newest); got != "1" {
		t.Errorf("unread of the newest: %q, want 1", got)
	}

	// Opening it: the split view, with the list, the open row marked, the
	// shortcuts' forms and the visitor's details.
	conv := owner.get("/conversations/" + busy).body
	for _, want := range []string{
		`class="desk has-open"`, `id="inbox"`, `data-live="/inbox?open=` + busy + `&amp;partial=1"`,
		`<a href="/conversations/` + busy + `" data-row-link aria-current="page">`,
		`data-key="t"`, `id="shortcuts"`, `<aside class="desk-details"`,
		"Firefox 133 · Linux", "Europe/Bucharest", "https://search.example/results", `<span lang="ro-RO">ro-RO</span>`,
		"https://shop.example/pricing", "Pages visited",
	} {
		if !strings.Contains(conv, want) {
			t.Errorf("the conversation's page lacks %q", want)
		}
	}
	// Read now, for the owner only; a new visitor message is unread again.
	if got := unread(owner.get("/inbox").body, busy); got != "" {
		t.Errorf("unread after opening: %q, want none", got)
	}
	op := td.signedIn(td.newUser("op@example.com", "Otto", td.owner.AccountID))
	if got := unread(op.get("/inbox").body, busy); got != "2" {
		t.Errorf("another operator's unread: %q, want 2", got)
	}
	if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: busy, Text: "three"}); err != nil {
		t.Fatal(err)
	}
	if got := unread(owner.get("/inbox").body, busy); got != "1" {
		t.Errorf("unread after a new message: %q, want 1", got)
	}
	// The list's live part marks the open conversation and shows it read.
	part := owner.get("/inbox?partial=1&open=" + busy).body
	if !strings.Contains(part, `aria-current="page"`) || unread(part, busy) != "" || strings.Contains(part, "<html") {
		t.Error("the list's live part with open=: no open mark, or an unread count on the open one, or a whole page")
	}
	// Filters carry over to the rows' links and the way back.
	filtered := owner.get("/conversations/" + waiting + "?mode=waiting").body
	if !strings.Contains(filtered, `href="/conversations/`+waiting+`?mode=waiting"`) || !strings.Contains(filtered, `href="/inbox?mode=waiting"`) {
		t.Error("the filters are not kept on the conversation's page")
	}
	// A conversation without any details sent: dashes, no page history.
	plain := owner.get("/conversations/" + newest).body
	if strings.Contains(plain, "Pages visited") || !strings.Contains(plain, "Direct (no referrer)") {
		t.Error("a visitor without details: page history or referrer shown")
	}
}

// The shortcuts' help is on the inbox too, in every language.
func TestDeskShortcutsHelp(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	b := td.signedIn(td.owner)
	body := b.get("/inbox").body
	if !strings.Contains(body, `<dialog id="shortcuts"`) || !strings.Contains(body, "Keyboard shortcuts") || !strings.Contains(body, "desk-none") {
		t.Error("the inbox lacks the shortcuts' help or the empty middle")
	}
}
