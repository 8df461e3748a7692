package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// testTokens: an AI reply's LLM tokens are stored with it and read back
// with the transcript, summed per conversation, and added to the account's
// usage of the reply's UTC month (whatever month the conversation began
// in), through AddMessage and AddExchange alike; a reply that is refused
// (an operator took over) adds nothing, and other accounts see nothing.
func testTokens(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	other := f.conversation(t, s, base)
	april := time.Date(2025, time.April, 1, 0, 0, 0, 0, time.UTC)

	ai := func(convID string, at time.Time, p, q int64) store.NewMessage {
		return store.NewMessage{ConversationID: convID, Role: domain.RoleAI, Text: "reply", CreatedAt: at,
			RequireMode: domain.ModeAI, Tokens: domain.Tokens{Prompt: p, Completion: q}}
	}
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: base})
	first, _ := add(t, s, ai(c.ID, base.Add(time.Second), 1200, 35))
	if first.Tokens != (domain.Tokens{Prompt: 1200, Completion: 35}) {
		t.Errorf("AddMessage returned tokens %+v", first.Tokens)
	}
	_, replySeq, err := s.AddExchange(ctx,
		store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "and?", CreatedAt: base.Add(2 * time.Second)},
		ai(c.ID, base.Add(3*time.Second), 800, 20))
	noErr(t, "AddExchange", err)
	if replySeq == 0 {
		t.Fatal("AddExchange did not store the reply")
	}
	// The last second of March in UTC, and the first of April.
	add(t, s, ai(c.ID, april.Add(-time.Second), 10, 1))
	add(t, s, ai(c.ID, april, 5000, 100))
	add(t, s, ai(other.ID, base, 7, 3))

	var got []domain.Tokens
	for _, m := range messages(t, s, c.ID) {
		got = append(got, m.Tokens)
	}
	want := []domain.Tokens{{}, {Prompt: 1200, Completion: 35}, {}, {Prompt: 800, Completion: 20}, {Prompt: 10, Completion: 1}, {Prompt: 5000, Completion: 100}}
	if len(got) != len(want) {
		t.Fatalf("transcript tokens %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d tokens %+v, want %+v", i, got[i], want[i])
		}
	}

	// Refused: the operator took over before the reply was stored.
	_, err = s.SetMode(ctx, other.ID, domain.ModeHuman)
	noErr(t, "SetMode", err)
	_, _, err = s.AddMessage(ctx, ai(other.ID, base, 999, 999))
	wantErr(t, "AddMessage after takeover", err, domain.ErrModeChanged)

	for _, tt := range []struct {
		id   string
		want domain.Tokens
	}{
		{c.ID, domain.Tokens{Prompt: 7010, Completion: 156}},
		{other.ID, domain.Tokens{Prompt: 7, Completion: 3}},
		{secret.ConversationID(), domain.Tokens{}},
	} {
		got, err := s.ConversationTokens(ctx, tt.id)
		noErr(t, "ConversationTokens", err)
		if got != tt.want {
			t.Errorf("ConversationTokens(%s) = %+v, want %+v", tt.id, got, tt.want)
		}
	}

	if u := usage(t, s, f.account.ID, "2025-03"); u != (domain.Usage{Period: "2025-03", Conversations: 2, Tokens: domain.Tokens{Prompt: 2017, Completion: 59}}) {
		t.Errorf("March usage = %+v", u)
	}
	if u := usage(t, s, f.account.ID, "2025-04"); u != (domain.Usage{Period: "2025-04", Tokens: domain.Tokens{Prompt: 5000, Completion: 100}}) {
		t.Errorf("April usage = %+v", u)
	}
	// A conversation begun in April, after tokens made the month's row,
	// is still admitted and counted.
	f.conversation(t, s, april.Add(time.Hour))
	if u := usage(t, s, f.account.ID, "2025-04"); u != (domain.Usage{Period: "2025-04", Conversations: 1, Tokens: domain.Tokens{Prompt: 5000, Completion: 100}}) {
		t.Errorf("April usage after a conversation = %+v", u)
	}
	g := setup(t, s, many)
	if u := usage(t, s, g.account.ID, "2025-03"); u != (domain.Usage{Period: "2025-03"}) {
		t.Errorf("another account's usage = %+v", u)
	}
}
