package dashboard

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"parley/internal/chat"
)

// The desk's transcript shows the visitor's thumbs on an AI answer (issue
// 20): a small thumb, turned over for "not helpful", with words for
// screen readers; answers without thumbs show none.
func TestTranscriptShowsThumbs(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	ctx := context.Background()
	conv := td.visit("")
	var ids []string
	for _, q := range []string{"What are your opening hours?", "Do you ship abroad?"} {
		res, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: conv, Text: q})
		if err != nil || res.MessageID == 0 {
			t.Fatalf("Chat = %+v, %v", res, err)
		}
		ids = append(ids, strconv.FormatInt(res.MessageID, 10))
	}
	feedback := func(helpful bool) {
		t.Helper()
		if err := td.chat.Feedback(ctx, chat.FeedbackInput{Key: td.key, ConversationID: conv, MessageID: ids[0], Helpful: helpful}); err != nil {
			t.Fatal(err)
		}
	}
	b := td.signedIn(td.owner)
	thumbs := func() []string {
		t.Helper()
		p := b.get("/conversations/" + conv)
		if p.status != 200 {
			t.Fatalf("conversation page: %d", p.status)
		}
		var out []string
		for _, id := range ids {
			_, li, _ := strings.Cut(p.body, `data-seq="`+id+`"`)
			li, _, _ = strings.Cut(li, "</li>")
			switch {
			case strings.Contains(li, `class="thumb down"`) && strings.Contains(li, "The visitor found this answer not helpful"):
				out = append(out, "down")
			case strings.Contains(li, `class="thumb"`) && strings.Contains(li, "The visitor found this answer helpful"):
				out = append(out, "up")
			case strings.Contains(li, "thumb"):
				out = append(out, "unclear: "+li)
			default:
				out = append(out, "none")
			}
		}
		return out
	}
	if got := thumbs(); got[0] != "none" || got[1] != "none" {
		t.Fatalf("before any feedback: %q", got)
	}
	feedback(false)
	if got := thumbs(); got[0] != "down" || got[1] != "none" {
		t.Fatalf("after not helpful: %q", got)
	}
	feedback(true)
	if got := thumbs(); got[0] != "up" || got[1] != "none" {
		t.Fatalf("after helpful: %q", got)
	}
}
