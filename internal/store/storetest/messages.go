package storetest

import (
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

func add(t *testing.T, s store.Store, m store.NewMessage) (domain.Message, domain.Mode) {
	t.Helper()
	got, conv, err := s.AddMessage(t.Context(), m)
	noErr(t, "AddMessage", err)
	return got, conv.Mode
}

// messages is a conversation's whole transcript, oldest first, read page
// by page.
func messages(t *testing.T, s store.Store, conversationID string) []domain.Message {
	t.Helper()
	var all []domain.Message
	for before := int64(0); ; {
		p, err := s.LatestMessages(t.Context(), conversationID, before, store.MaxMessagePage)
		noErr(t, "LatestMessages", err)
		all = append(slices.Clone(p.Messages), all...)
		if !p.More {
			if all == nil {
				all = []domain.Message{}
			}
			return all
		}
		before = p.Messages[0].Seq
	}
}

func testMessages(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	other := f.conversation(t, s, base)

	var want []domain.Message
	var lastSeq int64
	for i := range 12 {
		conv := c.ID
		if i%4 == 3 {
			conv = other.ID // interleaved: seq orders the whole instance
		}
		role := []domain.Role{domain.RoleVisitor, domain.RoleAI}[i%2]
		at := base.Add(time.Duration(i) * time.Second)
		m, mode := add(t, s, store.NewMessage{ConversationID: conv, Role: role, Text: string(rune('a' + i)), CreatedAt: at})
		if m.Seq <= lastSeq {
			t.Fatalf("seq %d after %d: not increasing", m.Seq, lastSeq)
		}
		lastSeq = m.Seq
		if mode != domain.ModeAI || m.ConversationID != conv || m.Role != role || m.Text != string(rune('a'+i)) {
			t.Errorf("AddMessage = %+v, %s", m, mode)
		}
		sameTime(t, "message CreatedAt", m.CreatedAt, at)
		if conv == c.ID {
			want = append(want, m)
		}
	}
	if got := messages(t, s, c.ID); !slices.Equal(got, want) {
		t.Errorf("Messages =\n%+v\nwant\n%+v", got, want)
	}

	conv, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	last := want[len(want)-1]
	if conv.LastMessage != last.Text || !conv.LastMessageAt.Equal(last.CreatedAt) {
		t.Errorf("conversation last message %q at %v, want %q at %v", conv.LastMessage, conv.LastMessageAt, last.Text, last.CreatedAt)
	}
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{})
	noErr(t, "Conversations", err)
	for _, pc := range page.Conversations {
		if pc.ID == c.ID && (pc.LastMessage != last.Text || !pc.LastMessageAt.Equal(last.CreatedAt)) {
			t.Errorf("Conversations: last message %q at %v, want %q at %v", pc.LastMessage, pc.LastMessageAt, last.Text, last.CreatedAt)
		}
	}

	// A zero CreatedAt is now.
	before := time.Now()
	m, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "now"})
	stampedNow(t, "default CreatedAt", m.CreatedAt, before, time.Now())

	_, _, err = s.AddMessage(ctx, store.NewMessage{ConversationID: secret.ConversationID(), Role: domain.RoleVisitor, Text: "x"})
	wantErr(t, "AddMessage missing conversation", err, domain.ErrNotFound)
}

// testModeChanged: an AI reply computed before a takeover is refused and
// leaves no trace.
func testModeChanged(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	visitor, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hello", CreatedAt: base})

	// While the mode is ai the conditional write succeeds.
	ai, mode := add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "hi", RequireMode: domain.ModeAI, CreatedAt: base})
	if mode != domain.ModeAI {
		t.Errorf("mode %s, want ai", mode)
	}

	changed, err := s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode", err)
	if !changed {
		t.Fatal("SetMode human: not changed")
	}
	before, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)

	_, _, err = s.AddMessage(ctx, store.NewMessage{
		ConversationID: c.ID, Role: domain.RoleAI, Text: "late reply", RequireMode: domain.ModeAI,
		CreatedAt: base.Add(time.Minute),
	})
	wantErr(t, "AI reply after takeover", err, domain.ErrModeChanged)

	if got := messages(t, s, c.ID); !slices.Equal(got, []domain.Message{visitor, ai}) {
		t.Errorf("messages after refused write = %+v", got)
	}
	after, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	if after != before {
		t.Errorf("conversation changed by a refused write: %+v, was %+v", after, before)
	}
}

// testOperatorTakeover: an operator's reply sets the mode in the same write.
func testOperatorTakeover(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	m, mode := add(t, s, store.NewMessage{
		ConversationID: c.ID, Role: domain.RoleOperator, Text: "I'm here", OperatorName: "Olga",
		SetMode: domain.ModeHuman, CreatedAt: base,
	})
	if mode != domain.ModeHuman || m.OperatorName != "Olga" || m.Role != domain.RoleOperator {
		t.Errorf("AddMessage = %+v, mode %s", m, mode)
	}
	got, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	if got.Mode != domain.ModeHuman {
		t.Errorf("mode %s, want human", got.Mode)
	}
	if ms := messages(t, s, c.ID); len(ms) != 1 || ms[0] != m {
		t.Errorf("Messages = %+v, want [%+v]", ms, m)
	}

	// Without SetMode the mode stays; AddMessage reports it.
	_, mode = add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "thanks"})
	if mode != domain.ModeHuman {
		t.Errorf("mode after a visitor message = %s, want human", mode)
	}
	// RequireMode and SetMode together: hand back to the AI.
	_, mode = add(t, s, store.NewMessage{
		ConversationID: c.ID, Role: domain.RoleOperator, Text: "bye", OperatorName: "Olga",
		RequireMode: domain.ModeHuman, SetMode: domain.ModeAI,
	})
	if mode != domain.ModeAI {
		t.Errorf("mode after handing back = %s, want ai", mode)
	}
}

func testMessagesAfter(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	var all []domain.Message
	for i := range 10 {
		role := []domain.Role{domain.RoleVisitor, domain.RoleAI, domain.RoleOperator}[i%3]
		m, _ := add(t, s, store.NewMessage{ConversationID: c.ID, Role: role, Text: "m", OperatorName: "", CreatedAt: base})
		all = append(all, m)
	}
	of := func(role domain.Role, after int64, limit int) []domain.Message {
		var out []domain.Message
		for _, m := range all {
			if m.Role == role && m.Seq > after && len(out) < limit {
				out = append(out, m)
			}
		}
		return out
	}
	tests := []struct {
		name  string
		role  domain.Role
		after int64
		limit int
	}{
		{"all visitor", domain.RoleVisitor, 0, 100},
		{"visitor limited", domain.RoleVisitor, 0, 2},
		{"ai after first", domain.RoleAI, all[1].Seq, 100},
		{"operator after last", domain.RoleOperator, all[9].Seq, 100},
		{"after middle", domain.RoleVisitor, all[4].Seq, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.MessagesAfter(t.Context(), c.ID, tt.role, tt.after, tt.limit)
			noErr(t, "MessagesAfter", err)
			if want := of(tt.role, tt.after, tt.limit); !slices.Equal(got, want) {
				t.Errorf("MessagesAfter = %+v, want %+v", got, want)
			}
		})
	}
}

// testUnicode: text is stored byte for byte.
func testUnicode(t *testing.T, s store.Store) {
	ctx := t.Context()
	texts := []string{
		"Привет, как дела?",
		"emoji 👋🏽 👨‍👩‍👧 🇺🇦",
		"controls \t\r\n\x01\x1f\x7f end",
		"combining e\u0301 vs \u00e9, zero width \u200b\u200d, rtl \u202eabc",
		"中文 日本語 한국어 العربية",
		"quotes ' \" ` \\ ; -- /* */",
		"  leading and trailing spaces  ",
	}
	acc := newAccount(t, s, many)
	for _, text := range texts {
		ag, err := s.CreateAgent(ctx, store.NewAgent{
			AccountID: acc.ID, ChatbotName: text, Key: secret.WidgetKey(),
			Knowledge: []domain.KnowledgeEntry{{Question: text, Answer: text, Lang: "ru"}},
		})
		noErr(t, "CreateAgent", err)
		f := fixture{account: acc, agent: ag}
		n := f.newConversation(base)
		n.PageURL = "https://example.com/" + text
		c, err := s.CreateConversation(ctx, n)
		noErr(t, "CreateConversation", err)
		add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: text, OperatorName: text})

		gotAgent, err := s.Agent(ctx, acc.ID, ag.ID)
		noErr(t, "Agent", err)
		kb, err := s.Knowledge(ctx, ag.ID)
		noErr(t, "Knowledge", err)
		gotConv, err := s.Conversation(ctx, c.ID)
		noErr(t, "Conversation", err)
		ms := messages(t, s, c.ID)
		if gotAgent.ChatbotName != text || len(kb) != 1 || kb[0].Question != text || kb[0].Answer != text ||
			gotConv.PageURL != n.PageURL || gotConv.LastMessage != text ||
			len(ms) != 1 || ms[0].Text != text || ms[0].OperatorName != text {
			t.Errorf("%q did not round-trip: agent %q, knowledge %+v, conversation %+v, messages %+v",
				text, gotAgent.ChatbotName, kb, gotConv, ms)
		}
	}
}

func testUsage(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	if u := usage(t, s, f.account.ID, "2025-03"); u != (domain.Usage{Period: "2025-03"}) {
		t.Errorf("Usage without conversations = %+v", u)
	}
	if u := usage(t, s, secret.AccountID(), "2025-03"); u != (domain.Usage{Period: "2025-03"}) {
		t.Errorf("Usage of a missing account = %+v", u)
	}
	f.conversation(t, s, base)
	f.conversation(t, s, base)
	if u := usage(t, s, f.account.ID, "2025-03"); u != (domain.Usage{Period: "2025-03", Conversations: 2}) {
		t.Errorf("Usage = %+v, want 2 conversations", u)
	}
}
