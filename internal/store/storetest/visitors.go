package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/quota"
	"parley/internal/store"
)

// testVisitors: a visitor's data is their conversations in the account,
// oldest first, each with its whole transcript (tokens included); another
// visitor's and another account's are not in it. Deleting the visitor
// removes exactly those conversations and their messages: afterwards
// every read of them, cached ones included (they are read before the
// delete so a caching store holds them), finds nothing, and the rest stay.
func testVisitors(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)

	newConv := func(f fixture, visitor string, at time.Time) domain.Conversation {
		t.Helper()
		n := f.newConversation(at)
		n.VisitorID = visitor
		c, err := s.CreateConversation(ctx, n)
		noErr(t, "CreateConversation", err)
		return c
	}
	const visitor = "v_privacy"
	later := newConv(a, visitor, base.Add(time.Hour))
	earlier := newConv(a, visitor, base)
	otherVisitor := newConv(a, "v_someone_else", base)
	otherAccount := newConv(b, visitor, base) // the same visitor id on another account's site

	add(t, s, store.NewMessage{ConversationID: earlier.ID, Role: domain.RoleVisitor, Text: "my email is ana@example.com", CreatedAt: base})
	add(t, s, store.NewMessage{ConversationID: earlier.ID, Role: domain.RoleAI, Text: "noted", CreatedAt: base.Add(time.Second),
		RequireMode: domain.ModeAI, Tokens: domain.Tokens{Prompt: 90, Completion: 4}})
	add(t, s, store.NewMessage{ConversationID: later.ID, Role: domain.RoleVisitor, Text: "hello again", CreatedAt: base.Add(time.Hour)})
	add(t, s, store.NewMessage{ConversationID: otherVisitor.ID, Role: domain.RoleVisitor, Text: "not theirs", CreatedAt: base})
	add(t, s, store.NewMessage{ConversationID: otherAccount.ID, Role: domain.RoleVisitor, Text: "another site", CreatedAt: base})

	got, err := s.VisitorData(ctx, a.account.ID, visitor)
	noErr(t, "VisitorData", err)
	if len(got) != 2 || got[0].Conversation.ID != earlier.ID || got[1].Conversation.ID != later.ID {
		t.Fatalf("VisitorData conversations %+v, want %s then %s", got, earlier.ID, later.ID)
	}
	if c := got[0].Conversation; c.VisitorID != visitor || c.AccountID != a.account.ID || c.LastMessage != "noted" {
		t.Errorf("exported conversation %+v", c)
	}
	var texts []string
	for _, vc := range got {
		for _, m := range vc.Messages {
			if m.ConversationID != vc.Conversation.ID {
				t.Errorf("message %+v under conversation %s", m, vc.Conversation.ID)
			}
			texts = append(texts, m.Text)
		}
	}
	if want := []string{"my email is ana@example.com", "noted", "hello again"}; !equalStrings(texts, want) {
		t.Errorf("exported messages %q, want %q", texts, want)
	}
	if tk := got[0].Messages[1].Tokens; tk != (domain.Tokens{Prompt: 90, Completion: 4}) {
		t.Errorf("exported tokens %+v", tk)
	}
	other, err := s.VisitorData(ctx, b.account.ID, visitor)
	noErr(t, "VisitorData other account", err)
	if len(other) != 1 || other[0].Conversation.ID != otherAccount.ID || len(other[0].Messages) != 1 {
		t.Errorf("other account's data %+v", other)
	}
	_, err = s.VisitorData(ctx, a.account.ID, "v_unknown")
	wantErr(t, "VisitorData of an unknown visitor", err, domain.ErrNotFound)

	// Fill whatever a store caches of the conversations about to go.
	for _, c := range []domain.Conversation{earlier, later} {
		_, err := s.Conversation(ctx, c.ID)
		noErr(t, "Conversation", err)
		_, err = s.PollState(ctx, c.ID)
		noErr(t, "PollState", err)
	}

	// Webhook deliveries about the visitor's conversations carry their
	// messages; one about another visitor's conversation stays.
	hook, err := s.CreateWebhook(ctx, store.NewWebhook{AccountID: a.account.ID, URL: "https://hooks.example/in", Events: []string{"message.created"}, Secret: "whsec_test"})
	noErr(t, "CreateWebhook", err)
	deliver := func(conv domain.Conversation, n int) {
		t.Helper()
		_, err := s.AddDelivery(ctx, store.NewDelivery{WebhookID: hook.ID, EventID: fmt.Sprintf("evt_%s_%d", conv.ID, n), Type: "message.created",
			Body: []byte(`{"type":"message.created","data":{"conversation_id":"` + conv.ID + `","text":"my email is ana@example.com"}}`), At: base})
		noErr(t, "AddDelivery", err)
	}
	deliver(earlier, 1)
	deliver(later, 2)
	deliver(otherVisitor, 3)

	wantErr(t, "DeleteVisitor of an unknown visitor", s.DeleteVisitor(ctx, a.account.ID, "v_unknown"), domain.ErrNotFound)
	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, a.account.ID, visitor))
	left, err := s.Deliveries(ctx, a.account.ID, hook.ID, 100)
	noErr(t, "Deliveries", err)
	if len(left) != 1 || !strings.Contains(string(left[0].Body), otherVisitor.ID) {
		t.Errorf("webhook deliveries after the delete: %d, want only the other visitor's", len(left))
	}
	wantErr(t, "DeleteVisitor again", s.DeleteVisitor(ctx, a.account.ID, visitor), domain.ErrNotFound)
	_, err = s.VisitorData(ctx, a.account.ID, visitor)
	wantErr(t, "VisitorData after the delete", err, domain.ErrNotFound)
	for _, c := range []domain.Conversation{earlier, later} {
		_, err := s.Conversation(ctx, c.ID)
		wantErr(t, "Conversation after the delete", err, domain.ErrNotFound)
		_, err = s.PollState(ctx, c.ID)
		wantErr(t, "PollState after the delete", err, domain.ErrNotFound)
		if ms := messages(t, s, c.ID); len(ms) != 0 {
			t.Errorf("messages of %s after the delete: %+v", c.ID, ms)
		}
		tk, err := s.ConversationTokens(ctx, c.ID)
		noErr(t, "ConversationTokens", err)
		if tk != (domain.Tokens{}) {
			t.Errorf("tokens of %s after the delete: %+v", c.ID, tk)
		}
		_, _, err = s.AddMessage(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "back?", CreatedAt: base.Add(2 * time.Hour)})
		wantErr(t, "AddMessage to a deleted conversation", err, domain.ErrNotFound)
	}
	page, err := s.Conversations(ctx, a.account.ID, store.ConversationFilter{})
	noErr(t, "Conversations", err)
	if len(page.Conversations) != 1 || page.Conversations[0].ID != otherVisitor.ID {
		t.Errorf("account's conversations after the delete %+v, want only %s", page.Conversations, otherVisitor.ID)
	}
	if ms := messages(t, s, otherVisitor.ID); len(ms) != 1 {
		t.Errorf("another visitor's messages %+v", ms)
	}
	if ms := messages(t, s, otherAccount.ID); len(ms) != 1 {
		t.Errorf("another account's messages of the same visitor id %+v", ms)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// visitorTraces stores on the conversation everything else that is kept
// about a visitor and about the team's work on their conversation: the
// browser details, two pages, the contact they left, their last poll,
// their rating, a private note and the operator's read mark (set past any
// message, so it hides every message from UnreadCounts while it exists).
func visitorTraces(t *testing.T, s store.Store, c domain.Conversation, operator domain.User, at time.Time) {
	t.Helper()
	ctx := t.Context()
	noErr(t, "SetVisitorContext", s.SetVisitorContext(ctx, c.ID, store.VisitorContext{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0",
		Language: "ro-RO", TimeZone: "Europe/Bucharest", Referrer: "https://search.example/?q=shop"}))
	noErr(t, "RecordPage", s.RecordPage(ctx, c.ID, "https://shop.example/", at))
	noErr(t, "RecordPage", s.RecordPage(ctx, c.ID, "https://shop.example/pricing", at.Add(time.Minute)))
	noErr(t, "SetVisitorContact", s.SetVisitorContact(ctx, c.ID, store.NewContact{Name: "Ana", Email: "ana@example.com", Lang: "ro", At: at.Add(2 * time.Minute)}))
	noErr(t, "TouchVisitor", s.TouchVisitor(ctx, c.ID, at.Add(3*time.Minute)))
	noErr(t, "SetRating", s.SetRating(ctx, store.Rating{ConversationID: c.ID, Rating: 4, Comment: "quick, thanks", At: at.Add(4 * time.Minute)}))
	_, err := s.AddNote(ctx, store.NewNote{AccountID: c.AccountID, ConversationID: c.ID, AuthorID: operator.ID, AuthorName: operator.Name,
		Text: "wants a refund"})
	noErr(t, "AddNote", err)
	noErr(t, "MarkRead", s.MarkRead(ctx, operator.ID, c.ID, 1<<40))
}

// traces reads back what visitorTraces stored on the conversation id:
// the details and pages, the contact and poll times, the rating (nil
// when none), the notes, and the operator's unread count of it.
type traces struct {
	details   store.VisitorContext
	contactAt time.Time
	polledAt  time.Time
	rating    *store.Rating
	notes     int
	unread    int
}

func readTraces(t *testing.T, s store.Store, accountID, conversationID string, operator domain.User) traces {
	t.Helper()
	ctx := t.Context()
	var tr traces
	var err error
	tr.details, err = s.VisitorContext(ctx, conversationID)
	noErr(t, "VisitorContext", err)
	contact, err := s.VisitorContact(ctx, conversationID)
	noErr(t, "VisitorContact", err)
	tr.contactAt = contact.At
	tr.polledAt, err = s.VisitorPolledAt(ctx, conversationID)
	noErr(t, "VisitorPolledAt", err)
	switch r, err := s.Rating(ctx, conversationID); {
	case err == nil:
		tr.rating = &r
	case !errors.Is(err, domain.ErrNotFound):
		t.Fatalf("Rating: %v", err)
	}
	notes, err := s.Notes(ctx, accountID, conversationID)
	noErr(t, "Notes", err)
	tr.notes = len(notes)
	unread, err := s.UnreadCounts(ctx, operator.ID, []string{conversationID})
	noErr(t, "UnreadCounts", err)
	tr.unread = unread[conversationID]
	return tr
}

// testVisitorDataComplete: VisitorData has, per conversation, the
// visitor's identity fields, browser details, page history (latest
// first, with times), when they left a contact and last polled, and
// their rating; zero values where nothing was stored. DeleteVisitor
// erases every one of those with the conversations, and the team's
// notes and read marks on them too: a conversation created afterwards
// with the same id (the ids are the caller's) inherits nothing. Another
// visitor's and another account's traces stay.
func testVisitorDataComplete(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)
	opA := newUser(t, s, a.account.ID, domain.UserOperator)
	opB := newUser(t, s, b.account.ID, domain.UserOperator)
	create := func(f fixture, visitor string, id domain.VerifiedIdentity, at time.Time) domain.Conversation {
		t.Helper()
		n := f.newConversation(at)
		n.VisitorID, n.Identity = visitor, id
		c, err := s.CreateConversation(ctx, n)
		noErr(t, "CreateConversation", err)
		add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hello", CreatedAt: at})
		return c
	}
	const visitor = "v_complete"
	ana := domain.VerifiedIdentity{UserID: "user-7", Name: "Ana Verified", Email: "ana@shop.example", Verified: true}
	traced := create(a, visitor, domain.VerifiedIdentity{}, base)
	bare := create(a, visitor, domain.VerifiedIdentity{}, base.Add(time.Hour))
	verified := create(a, "v_laptop", ana, base.Add(2*time.Hour)) // the same person on another device
	otherVisitor := create(a, "v_bystander", domain.VerifiedIdentity{}, base)
	otherAccount := create(b, visitor, domain.VerifiedIdentity{}, base)
	for _, c := range []domain.Conversation{traced, otherVisitor} {
		visitorTraces(t, s, c, opA, base)
	}
	visitorTraces(t, s, otherAccount, opB, base)
	if tr := readTraces(t, s, a.account.ID, traced.ID, opA); tr.unread != 0 || tr.notes != 1 || tr.rating == nil {
		t.Fatalf("traces before the delete %+v (the read mark must hide the message)", tr)
	}
	if tr := readTraces(t, s, a.account.ID, bare.ID, opA); tr.unread != 1 {
		t.Fatalf("unread without a mark = %d, want 1", tr.unread)
	}

	got, err := s.VisitorData(ctx, a.account.ID, visitor)
	noErr(t, "VisitorData", err)
	if len(got) != 2 || got[0].Conversation.ID != traced.ID || got[1].Conversation.ID != bare.ID {
		t.Fatalf("VisitorData %+v, want %s then %s", got, traced.ID, bare.ID)
	}
	full := got[0]
	if c := full.Conversation; c.Name != "Ana" || c.Email != "ana@example.com" || c.Verified || c.UserID != "" {
		t.Errorf("identity of a conversation with a contact left: %+v", c)
	}
	d := full.Details
	if d.UserAgent != "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" || d.Language != "ro-RO" || d.TimeZone != "Europe/Bucharest" ||
		d.Referrer != "https://search.example/?q=shop" {
		t.Errorf("details %+v", d)
	}
	if len(d.Pages) != 2 || d.Pages[0].URL != "https://shop.example/pricing" || d.Pages[1].URL != "https://shop.example/" {
		t.Fatalf("pages %+v, want pricing then the home page (latest first)", d.Pages)
	}
	sameTime(t, "latest page", d.Pages[0].At, base.Add(time.Minute))
	sameTime(t, "first page", d.Pages[1].At, base)
	sameTime(t, "contact left", full.ContactAt, base.Add(2*time.Minute))
	if full.ContactLang != "ro" {
		t.Errorf("contact language %q, want ro", full.ContactLang)
	}
	sameTime(t, "last poll", full.PolledAt, base.Add(3*time.Minute))
	if r := full.Rating; r == nil || r.Rating != 4 || r.Comment != "quick, thanks" || r.ConversationID != traced.ID {
		t.Errorf("rating %+v", r)
	} else {
		sameTime(t, "rated at", r.At, base.Add(4*time.Minute))
	}
	if e := got[1]; e.Details.UserAgent != "" || len(e.Details.Pages) != 0 || !e.ContactAt.IsZero() || e.ContactLang != "" || !e.PolledAt.IsZero() || e.Rating != nil {
		t.Errorf("a conversation with nothing else stored: %+v", e)
	}

	byUser, err := s.VisitorData(ctx, a.account.ID, "user-7")
	noErr(t, "VisitorData by user id", err)
	if len(byUser) != 1 || byUser[0].Conversation.ID != verified.ID {
		t.Fatalf("VisitorData by user id %+v", byUser)
	}
	if c := byUser[0].Conversation; c.UserID != "user-7" || c.Name != "Ana Verified" || c.Email != "ana@shop.example" || !c.Verified {
		t.Errorf("verified identity %+v", c)
	}

	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, a.account.ID, visitor))
	// Every read of the erased conversations finds nothing.
	for _, c := range []domain.Conversation{traced, bare} {
		if tr := readTraces(t, s, a.account.ID, c.ID, opA); tr.details.UserAgent != "" || len(tr.details.Pages) != 0 ||
			!tr.contactAt.IsZero() || !tr.polledAt.IsZero() || tr.rating != nil || tr.notes != 0 {
			t.Errorf("traces of %s after the delete: %+v", c.ID, tr)
		}
	}
	// The same id again, on a fresh conversation: no row was left behind
	// to join it, the read mark included (the new message is unread).
	n := a.newConversation(base.Add(3 * time.Hour))
	n.ID, n.VisitorID = traced.ID, "v_newcomer"
	again, err := s.CreateConversation(ctx, n)
	noErr(t, "CreateConversation with the erased id", err)
	add(t, s, store.NewMessage{ConversationID: again.ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: base.Add(3 * time.Hour)})
	if tr := readTraces(t, s, a.account.ID, again.ID, opA); tr.details.UserAgent != "" || len(tr.details.Pages) != 0 ||
		!tr.contactAt.IsZero() || !tr.polledAt.IsZero() || tr.rating != nil || tr.notes != 0 || tr.unread != 1 {
		t.Errorf("a new conversation with the erased id inherited %+v", tr)
	}
	vd, err := s.VisitorData(ctx, a.account.ID, "v_newcomer")
	noErr(t, "VisitorData of the newcomer", err)
	if len(vd) != 1 || vd[0].Conversation.Name != "" || vd[0].Details.UserAgent != "" || vd[0].Rating != nil || !vd[0].ContactAt.IsZero() {
		t.Errorf("newcomer's data %+v", vd)
	}

	// The bystander's and the other account's traces stay.
	for _, k := range []struct {
		account string
		conv    domain.Conversation
		op      domain.User
	}{{a.account.ID, otherVisitor, opA}, {b.account.ID, otherAccount, opB}} {
		tr := readTraces(t, s, k.account, k.conv.ID, k.op)
		if tr.details.UserAgent == "" || len(tr.details.Pages) != 2 || tr.contactAt.IsZero() || tr.polledAt.IsZero() ||
			tr.rating == nil || tr.notes != 1 || tr.unread != 0 {
			t.Errorf("traces of %s, not the erased visitor's: %+v", k.conv.ID, tr)
		}
	}
}

// testVisitorErasureKeepsUsage: erasing a visitor lowers neither the
// account's usage nor forgets the usage thresholds already reported (the
// rows name no visitor): the next conversation crosses the next
// threshold, and the one already crossed is not reported again.
func testVisitorErasureKeepsUsage(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, domain.Limits{MonthlyConversations: 5})
	for i := 1; i <= 4; i++ {
		n := f.newConversation(base)
		n.VisitorID = "v_counted"
		got, err := crossing(t, s, n)
		noErr(t, "CreateConversation", err)
		if want := map[int]int{4: 1}[i]; len(got) != want {
			t.Fatalf("conversation %d crossed %v", i, names(got))
		}
	}
	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, f.account.ID, "v_counted"))
	if u := usage(t, s, f.account.ID, "2025-03"); u.Conversations != 4 {
		t.Fatalf("usage after the erasure %+v, want 4 conversations", u)
	}
	got, err := crossing(t, s, f.newConversation(base))
	noErr(t, "CreateConversation after the erasure", err)
	if !slices.Equal(names(got), []string{quota.ThresholdAllowance100}) {
		t.Errorf("the 5th conversation crossed %v, want only %s", names(got), quota.ThresholdAllowance100)
	}
}
