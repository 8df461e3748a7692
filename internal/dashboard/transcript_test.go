package dashboard

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"parley/internal/agent"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/store"
)

// fillConversation stores n messages of 2,000 characters in a conversation
// directly through the store, with no cap: a conversation from before the
// cap. Several writers share the store's group commits.
func (td *testDash) fillConversation(id string, n int) {
	td.t.Helper()
	var wg sync.WaitGroup
	const writers = 8
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				text := fmt.Sprintf("message %05d ", i) + strings.Repeat("x", 2000-14)
				if _, _, err := td.st.AddMessage(context.Background(), store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: text}); err != nil {
					td.t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

var (
	seqRe   = regexp.MustCompile(`data-seq="(\d+)"`)
	olderRe = regexp.MustCompile(`<a href="(/conversations/[^"?]+\?before=(\d+))" data-older`)
)

// A conversation page shows its newest 100 messages, however many the
// conversation holds, with a link to the 100 before them that works
// without JavaScript; following the links reaches the first message.
func TestConversationPageIsBounded(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	id := td.visit("")
	const total = 1_200
	td.fillConversation(id, total)
	b := td.signedIn(td.owner)

	p := b.get("/conversations/" + id)
	seqs := seqRe.FindAllStringSubmatch(p.body, -1)
	if p.status != 200 || len(seqs) != transcriptPage {
		t.Fatalf("status %d, %d messages shown; want 200, %d", p.status, len(seqs), transcriptPage)
	}
	// The whole page is about its 100 messages of 2,000 characters: the
	// 1,200 would be 2.4 MB.
	if max := transcriptPage*2_100 + 20_000; len(p.body) > max {
		t.Errorf("the page is %d bytes; want at most %d", len(p.body), max)
	}
	// The conversation's messages are seqs 1 to 1,200 of a fresh store.
	if first, last := seqs[0][1], seqs[len(seqs)-1][1]; first != strconv.Itoa(total-transcriptPage+1) || last != strconv.Itoa(total) {
		t.Errorf("the page shows messages %s to %s; want the newest, %d to %d", first, last, total-transcriptPage+1, total)
	}
	if strings.Contains(p.body, "Show the newest messages") {
		t.Error("the newest page links to the newest page")
	}

	seen := len(seqs)
	for pages := 1; ; pages++ {
		m := olderRe.FindStringSubmatch(p.body)
		if m == nil {
			if seen != total || pages != total/transcriptPage {
				t.Fatalf("the links ended after %d pages and %d messages; want %d and %d", pages, seen, total/transcriptPage, total)
			}
			break
		}
		if first := seqRe.FindStringSubmatch(p.body)[1]; m[2] != first {
			t.Fatalf("the older link says before=%s; the oldest message shown is %s", m[2], first)
		}
		p = b.get(m[1])
		seqs := seqRe.FindAllStringSubmatch(p.body, -1)
		if p.status != 200 || len(seqs) != transcriptPage || !strings.Contains(p.body, "Show the newest messages") {
			t.Fatalf("%s: status %d, %d messages", m[1], p.status, len(seqs))
		}
		// The live region refreshes this page, not the newest one.
		if !strings.Contains(p.body, `data-live="/conversations/`+id+`?partial=1&before=`+m[2]+`"`) {
			t.Fatalf("%s: the live region does not keep the page's cursor", m[1])
		}
		before, _ := strconv.Atoi(m[2])
		if first, last := seqs[0][1], seqs[len(seqs)-1][1]; first != strconv.Itoa(before-transcriptPage) || last != strconv.Itoa(before-1) {
			t.Fatalf("%s shows messages %s to %s; want %d to %d", m[1], first, last, before-transcriptPage, before-1)
		}
		seen += len(seqs)
	}

	// The partial a script loads older messages from.
	first := seqRe.FindStringSubmatch(b.get("/conversations/" + id).body)[1]
	part := b.get("/conversations/" + id + "?partial=1&before=" + first)
	if strings.Contains(part.body, "<html") || len(seqRe.FindAllString(part.body, -1)) != transcriptPage || olderRe.FindString(part.body) == "" {
		t.Errorf("the partial before %s: %d messages, older link %q", first, len(seqRe.FindAllString(part.body, -1)), olderRe.FindString(part.body))
	}
}

// A before that is not one of the conversation's messages is a page that
// does not exist.
func TestConversationBadBefore(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	id := td.visit("What are your opening hours?")
	other := td.visit("How much does shipping cost?")
	b := td.signedIn(td.owner)
	otherSeq := seqRe.FindStringSubmatch(b.get("/conversations/" + other).body)[1]
	for _, before := range []string{"x", "0", "-3", "99999999", otherSeq} {
		if p := b.get("/conversations/" + id + "?before=" + url.QueryEscape(before)); p.status != 404 {
			t.Errorf("before=%s: status %d, want 404", before, p.status)
		}
	}
}

// An operator's reply to a conversation that is full even for operators
// (twice the cap) is refused with a message that says so, and the draft
// is kept.
func TestReplyToFullConversation(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	td.d.Chat = chat.New(chat.Options{Store: td.st, Responder: agent.NewKB(td.st, agent.KBOptions{}), Notifier: td.hub,
		Logger: slog.New(slog.DiscardHandler), MaxMessages: 2})
	id := td.visit("")
	td.fillConversation(id, 4)
	b := td.signedIn(td.owner)
	p := b.post("/conversations/"+id+"/reply", url.Values{"text": {"Still there?"}})
	if p.status != 403 || !strings.Contains(p.body, "This conversation has reached its message limit") || !strings.Contains(p.body, "Still there?</textarea>") {
		t.Errorf("reply to a full conversation: status %d", p.status)
	}
	if n := len(seqRe.FindAllString(b.get("/conversations/"+id).body, -1)); n != 4 {
		t.Errorf("%d messages after the refused reply, want 4", n)
	}
}
