package dashboard

import (
	"context"
	"crypto/sha256"
	"html/template"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/domain"
)

// The inbox's rows come from the row cache, and a row shows whatever of it
// changed at once: the language, the minutes waited as the clock moves, a
// new message's unread count, an assignee, the open mark. (Unread counts per
// user: TestDeskInbox.)
func TestInboxRowsFollowEveryChange(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := context.Background()
	conv := td.visit("where is my order")
	if _, err := td.st.SetWaiting(ctx, conv, true); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	td.d.Now = func() time.Time { return now.Add(3 * time.Minute) }
	owner := td.signedIn(td.owner)
	lang := "en"
	row := func(path string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", td.srv.URL+path, nil)
		req.Header.Set("Accept-Language", lang)
		m := regexp.MustCompile(`(?s)<tr data-id="` + conv + `".*?</tr>`).FindString(owner.do(req).body)
		if m == "" {
			t.Fatalf("%s: no row", path)
		}
		return m
	}
	steps := []struct {
		what, path string
		change     func()
		want       string
	}{
		{"first", "/inbox?partial=1", func() {}, "for 3 min"},
		{"the same again", "/inbox?partial=1", func() {}, "Waiting for a human"},
		{"in Romanian", "/inbox?partial=1", func() { lang = "ro" }, "Așteaptă un om"},
		{"back in English", "/inbox?partial=1", func() { lang = "en" }, "Waiting for a human"},
		{"two minutes on", "/inbox?partial=1", func() { td.d.Now = func() time.Time { return now.Add(5 * time.Minute) } }, "for 5 min"},
		{"a new message", "/inbox?partial=1", func() {
			if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: conv, Text: "hello again, anyone?"}); err != nil {
				t.Fatal(err)
			}
		}, `title="2 unread"`},
		{"taken over", "/inbox?partial=1", func() {
			if _, _, err := td.chat.TakeOverAs(ctx, td.owner.AccountID, conv, td.owner); err != nil {
				t.Fatal(err)
			}
		}, `<span class="assignee">`},
		{"open beside the list", "/inbox?partial=1&open=" + conv, func() {}, `aria-current="page"`},
	}
	for _, s := range steps {
		s.change()
		if r := row(s.path); !strings.Contains(r, s.want) {
			t.Fatalf("%s: the row lacks %q:\n%s", s.what, s.want, r)
		}
	}
	if r := row("/inbox?partial=1"); strings.Contains(r, "aria-current") {
		t.Fatal("the open mark stayed on the list without an open conversation")
	}
}

// The cache keeps at most maxCachedRows rows, and renders each distinct
// row once.
func TestRowCacheBound(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	var c rowCache
	tpl := td.d.pages["inbox"]
	first, err := c.render(tpl, deskRow{Lang: "en", Row: inboxRow{Conversation: domain.Conversation{ID: "cv_1"}, Status: "ai"}})
	if err != nil || !strings.Contains(string(first), `data-id="cv_1"`) {
		t.Fatalf("rendered %q, %v", first, err)
	}
	for i := range maxCachedRows + 10 {
		if _, err := c.render(tpl, deskRow{Lang: "en", Row: inboxRow{Conversation: domain.Conversation{ID: "cv_x"}, Status: "ai", Unread: i}}); err != nil {
			t.Fatal(err)
		}
		if len(c.rows) > maxCachedRows {
			t.Fatalf("%d rows kept", len(c.rows))
		}
	}
	// A hit is the HTML rendered for that row.
	c.rows[sha256.Sum256([]byte("nothing"))] = template.HTML("x")
	again, _ := c.render(tpl, deskRow{Lang: "en", Row: inboxRow{Conversation: domain.Conversation{ID: "cv_x"}, Status: "ai", Unread: 3}})
	if !strings.Contains(string(again), `>3<`) {
		t.Fatalf("unread 3 rendered as %q", again)
	}
}
