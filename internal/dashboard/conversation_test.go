package dashboard

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/domain"
)

// visit starts a widget conversation on the test agent and sends text.
func (td *testDash) visit(text string) string {
	td.t.Helper()
	ctx := context.Background()
	res, err := td.chat.Init(ctx, chat.InitInput{Key: td.key, PageURL: "https://shop.example/p?id=1"})
	if err != nil {
		td.t.Fatal(err)
	}
	if text != "" {
		if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: res.ConversationID, Text: text}); err != nil {
			td.t.Fatal(err)
		}
	}
	return res.ConversationID
}

func TestInbox(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	first := td.visit("What are your opening hours?")
	second := td.visit(`<script>alert("x")</script> Talk to a human`)
	// Another account's conversation never shows.
	other := td.newUser("other@example.com", "Other", "")
	_, otherKey := td.newAgent(other.AccountID, "Theirs")
	res, _ := td.chat.Init(context.Background(), chat.InitInput{Key: otherKey})

	b := td.signedIn(td.owner)
	p := b.get("/inbox")
	if p.status != 200 || !strings.Contains(p.body, first) || !strings.Contains(p.body, second) || strings.Contains(p.body, res.ConversationID) {
		t.Fatalf("inbox: %d", p.status)
	}
	if strings.Contains(p.body, `<script>alert`) {
		t.Fatal("visitor text is not escaped in the inbox")
	}
	if c := b.get("/conversations/" + second); strings.Contains(c.body, `<script>alert`) || !strings.Contains(c.body, "&lt;script&gt;alert") {
		t.Fatal("visitor text is not escaped in the conversation")
	}
	if strings.Index(p.body, second) > strings.Index(p.body, first) {
		t.Fatal("not newest first")
	}
	if !strings.Contains(p.body, "Waiting for a human") || !strings.Contains(p.body, "https://shop.example/p?id=1") {
		t.Fatal("inbox lacks the mode or the page URL")
	}
	for query, want := range map[string][]string{
		"?mode=waiting":         {second},
		"?mode=human":           {},
		"?mode=ai":              {first, second},
		"?q=OPENING+hours":      {first},
		"?agent=" + td.agent.ID: {first, second},
		"?agent=ag_other":       {},
	} {
		p := b.get("/inbox" + query + "&partial=1")
		for _, id := range []string{first, second} {
			if got, w := strings.Contains(p.body, id), contains(want, id); got != w {
				t.Errorf("%s: %s shown=%v, want %v", query, id, got, w)
			}
		}
		if strings.Contains(p.body, "<html") {
			t.Errorf("%s: a partial rendered the layout", query)
		}
	}
	// A search of one or two characters says it looked through the
	// newest conversations only; a longer one does not.
	if p := b.get("/inbox?q=op"); !strings.Contains(p.body, `id="short-search"`) || !strings.Contains(p.body, "newest 1000 conversations only") {
		t.Errorf("a two-character search does not say it is bounded")
	}
	if p := b.get("/inbox?q=ope"); strings.Contains(p.body, `id="short-search"`) {
		t.Errorf("a three-character search says it is bounded")
	}
	// A search says what its results are ordered by; the list does not.
	if p := b.get("/inbox?q=ope"); !strings.Contains(p.body, `id="search-order"`) || !strings.Contains(p.body, "ordered by their newest matching message") {
		t.Errorf("a search does not say its order")
	}
	if p := b.get("/inbox"); strings.Contains(p.body, `id="search-order"`) {
		t.Errorf("the list without a search says the search's order")
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestInboxPages(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	for range 53 {
		td.visit("")
	}
	b := td.signedIn(td.owner)
	p := b.get("/inbox")
	if n := strings.Count(p.body, `<tr data-id=`); n != 50 {
		t.Fatalf("first page has %d rows, want 50", n)
	}
	i := strings.Index(p.body, `href="/inbox?cursor=`)
	if i < 0 {
		t.Fatal("no next page link")
	}
	link := p.body[i+6 : i+6+strings.Index(p.body[i+6:], `"`)]
	next := b.get(strings.ReplaceAll(link, "&amp;", "&"))
	if n := strings.Count(next.body, `<tr data-id=`); n != 3 {
		t.Fatalf("second page has %d rows, want 3", n)
	}
}

func TestConversationTakeOverReplyRelease(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	conv := td.visit("What are your opening hours?")
	op := td.newUser("op@example.com", "Oleg", td.owner.AccountID)
	b := td.signedIn(op) // operators answer conversations too
	p := b.get("/conversations/" + conv)
	for _, want := range []string{"From 9 to 17.", "What are your opening hours?", ">Take over</button>", `<label for="reply-text">Reply</label>`, ">Send</button>", "https://shop.example/p?id=1"} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("conversation page lacks %q", want)
		}
	}
	if p := b.post("/conversations/"+conv+"/takeover", nil); p.status != http.StatusSeeOther {
		t.Fatalf("take over: %d", p.status)
	}
	p = b.get("/conversations/" + conv)
	if !strings.Contains(p.body, "You are answering this conversation.") || !strings.Contains(p.body, ">Hand back to AI</button>") {
		t.Fatal("after takeover the page does not say so")
	}
	// The owner sees who has it.
	if p := td.signedIn(td.owner).get("/conversations/" + conv); !strings.Contains(p.body, "<bdi>Oleg</bdi> is answering this conversation.") {
		t.Fatal("the owner does not see who answers")
	}
	if p := b.post("/conversations/"+conv+"/reply", url.Values{"text": {"Hello, <b>Oleg</b> here"}}); p.status != http.StatusSeeOther {
		t.Fatalf("reply: %d", p.status)
	}
	// The visitor's poll gets it, with the operator's name.
	poll, err := td.chat.Poll(context.Background(), chat.PollInput{Key: td.key, ConversationID: conv})
	if err != nil || len(poll.Messages) != 1 || poll.Messages[0].OperatorName != "Oleg" || !poll.Human {
		t.Fatalf("visitor poll: %+v %v", poll, err)
	}
	if p := b.get("/conversations/" + conv); strings.Contains(p.body, "<b>Oleg</b>") || !strings.Contains(p.body, "&lt;b&gt;Oleg&lt;/b&gt;") {
		t.Fatal("operator text not escaped")
	}
	if p := b.post("/conversations/"+conv+"/reply", url.Values{"text": {"   "}}); p.status != 400 || !strings.Contains(p.body, "must not be empty") {
		t.Fatalf("blank reply: %d", p.status)
	}
	b.post("/conversations/"+conv+"/release", nil)
	if c, _ := td.st.Conversation(context.Background(), conv); c.Mode != domain.ModeAI || c.AssigneeID != "" {
		t.Fatalf("after release: %+v", c)
	}
}

func TestReplyTakesOver(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	conv := td.visit("hi")
	b := td.signedIn(td.owner)
	b.post("/conversations/"+conv+"/reply", url.Values{"text": {"A person here."}})
	c, _ := td.st.Conversation(context.Background(), conv)
	if c.Mode != domain.ModeHuman || c.AssigneeID != td.owner.ID {
		t.Fatalf("reply did not take over: %+v", c)
	}
}

func TestTwoOperatorsRaceToTakeOver(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	conv := td.visit("hi")
	a := td.signedIn(td.owner)
	b := td.signedIn(td.newUser("op@example.com", "Oleg", td.owner.AccountID))
	var wg sync.WaitGroup
	results := make([]page, 2)
	for i, br := range []*browser{a, b} {
		wg.Go(func() { results[i] = br.post("/conversations/"+conv+"/takeover", nil) })
	}
	wg.Wait()
	lost := 0
	for _, r := range results {
		if strings.HasSuffix(r.location, "?lost=1") {
			lost++
		}
	}
	if lost != 1 {
		t.Fatalf("%d of 2 lost the race, want exactly 1: %+v", lost, results)
	}
	c, _ := td.st.Conversation(context.Background(), conv)
	loser := a
	if c.AssigneeID == td.owner.ID {
		loser = b
	}
	p := loser.get("/conversations/" + conv + "?lost=1")
	if !strings.Contains(p.body, "Someone else took this conversation over first.") || !strings.Contains(p.body, "<bdi>"+c.AssigneeName+"</bdi> is answering") {
		t.Fatalf("the loser does not see who has it (%s)", c.AssigneeName)
	}
}

func TestOtherAccountsConversationIsNotFound(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	conv := td.visit("hi")
	stranger := td.signedIn(td.newUser("other@example.com", "Other", ""))
	for _, p := range []page{
		stranger.get("/conversations/" + conv),
		stranger.post("/conversations/"+conv+"/takeover", nil),
		stranger.post("/conversations/"+conv+"/reply", url.Values{"text": {"hi"}}),
		stranger.post("/conversations/"+conv+"/release", nil),
		stranger.get("/events?conversation=" + conv),
	} {
		if p.status != http.StatusNotFound {
			t.Fatalf("another account's conversation: %d", p.status)
		}
	}
	if c, _ := td.st.Conversation(context.Background(), conv); c.Mode != domain.ModeAI {
		t.Fatal("a stranger changed the conversation")
	}
}

func TestEventsStream(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	b := td.signedIn(td.owner)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", td.srv.URL+"/events", nil)
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(res.Body)
	lines.Scan() // "retry: 3000"
	// A visitor starting a conversation is an inbox change.
	go td.chat.Init(context.Background(), chat.InitInput{Key: td.key}) // errors show as a missing event
	for lines.Scan() {
		if lines.Text() == "event: change" {
			return
		}
	}
	t.Fatalf("no change event: %v", lines.Err())
}

func TestEventsNeedASession(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	if p := td.browser().get("/events"); p.status != http.StatusUnauthorized {
		t.Fatalf("anonymous events: %d", p.status)
	}
}

// A user whose name is over 100 characters can reply; the reply takes the
// conversation over and assigns it to them. A refused reply (blank) to an
// AI-handled conversation leaves it with the AI.
func TestReplyWithALongNameAndARefusedReply(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, allRoutes)
	long := strings.Repeat("Оля ", 30) // 120 characters
	op := td.newUser("longname@example.com", long, td.owner.AccountID)
	b := td.signedIn(op)

	conv := td.visit("What are your opening hours?")
	if p := b.post("/conversations/"+conv+"/reply", url.Values{"text": {"   "}}); p.status != http.StatusBadRequest {
		t.Fatalf("blank reply: %d", p.status)
	}
	if c, _ := td.st.Conversation(context.Background(), conv); c.Mode != domain.ModeAI || c.AssigneeID != "" {
		t.Fatalf("a refused reply changed the conversation: mode %s, assignee %q", c.Mode, c.AssigneeID)
	}

	if p := b.post("/conversations/"+conv+"/reply", url.Values{"text": {"I can help"}}); p.status != http.StatusSeeOther {
		t.Fatalf("reply by a user with a long name: %d %s", p.status, p.body)
	}
	c, _ := td.st.Conversation(context.Background(), conv)
	if c.Mode != domain.ModeHuman || c.AssigneeID != op.ID {
		t.Fatalf("after the reply: mode %s, assignee %q; want human, %s", c.Mode, c.AssigneeID, op.ID)
	}
	page, _ := td.st.LatestMessages(context.Background(), conv, 0, 1)
	last := page.Messages[len(page.Messages)-1]
	if last.Text != "I can help" || len([]rune(last.OperatorName)) > 100 || !strings.HasPrefix(long, last.OperatorName) {
		t.Fatalf("stored reply %+v", last)
	}
}
