package dashboard

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/offline"
)

// The conversation page shows the visitor's rating and comment (issue 19)
// once there is one, and nothing before.
func TestRatingOnConversationPage(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	td.d.Offline = offline.New(offline.Options{Store: td.st, Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	res, err := td.chat.Init(ctx, chat.InitInput{Key: td.key})
	if err != nil {
		t.Fatal(err)
	}
	conv := res.ConversationID
	if _, err := td.chat.OperatorReply(ctx, td.owner.AccountID, conv, chat.Operator{Name: "Olga"}, "Hello"); err != nil {
		t.Fatal(err)
	}
	b := td.signedIn(td.owner)
	if p := b.get("/conversations/" + conv); strings.Contains(p.body, `class="rating"`) {
		t.Fatal("a rating shown before there is one")
	}
	if err := td.chat.Rate(ctx, chat.RateInput{Key: td.key, ConversationID: conv, Rating: 4, Comment: "Kind <b>and</b> quick"}); err != nil {
		t.Fatal(err)
	}
	p := b.get("/conversations/" + conv)
	for _, want := range []string{`<dd class="rating"><span aria-hidden="true">★★★★☆</span> 4 of 5`, "Kind &lt;b&gt;and&lt;/b&gt; quick"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
