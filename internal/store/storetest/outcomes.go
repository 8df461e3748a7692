package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// Raw reads what a store keeps of a conversation straight from its
// database, past any cache, for the outcome contract (RunOutcomes): the
// outcome is stored on the row and the reports group by it, but no method
// of store.Store returns it, and a cache could hide a column a write
// forgot.
type Raw interface {
	// StoredConversation is the conversation's row and its stored outcome.
	StoredConversation(t *testing.T, id string) (domain.Conversation, domain.Outcome)
	// StoredQuestions are the conversation's questions rows, by seq.
	StoredQuestions(t *testing.T, conversationID string) []store.Question
}

// RunOutcomes runs the contract of what happened in conversations (issue
// 20): every outcome reached through real message sequences, the handoffs
// by SetWaiting, TakeOver, SetMode, Assign, AutoAssign and DeleteUser, the
// operators' first message, the visitor's thumbs, and the questions
// recorded with unanswered replies and thumbs down, which go with their
// conversation. After every step the conversation read, the row on disk
// and the stored outcome agree with domain.Conversation.Outcome. open
// must return a fresh, empty store and its raw reader.
func RunOutcomes(t *testing.T, open func(t *testing.T) (store.Store, Raw)) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store, raw Raw)
	}{
		{"Messages", testOutcomeMessages},
		{"Operators", testOutcomeOperators},
		{"Handoffs", testOutcomeHandoffs},
		{"HandoffsKeepTheFirst", testOutcomeHandoffsKeepTheFirst},
		{"FeedbackQuestions", testFeedbackQuestions},
		{"QuestionsGoWithConversations", testQuestionsGoWithConversations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, raw := open(t)
			tt.fn(t, s, raw)
		})
	}
}

// outcomeIs checks conversation id as Conversation reads it against its
// row on disk and its stored outcome, and both against want, and returns
// it.
func outcomeIs(t *testing.T, s store.Store, raw Raw, id string, want domain.Outcome) domain.Conversation {
	t.Helper()
	c, err := s.Conversation(t.Context(), id)
	noErr(t, "Conversation", err)
	row, stored := raw.StoredConversation(t, id)
	if row != c {
		t.Fatalf("conversation %s: read %+v, on disk %+v", id, c, row)
	}
	if c.Outcome() != want || stored != want {
		t.Fatalf("conversation %s: outcome %s, stored %s; want %s (%+v)", id, c.Outcome(), stored, want, c)
	}
	return c
}

// questionsAre checks the questions rows of a conversation, by seq,
// against want (their ids and times but for At not compared).
func questionsAre(t *testing.T, raw Raw, c domain.Conversation, want ...store.Question) {
	t.Helper()
	got := raw.StoredQuestions(t, c.ID)
	if len(got) != len(want) {
		t.Fatalf("questions of %s: %+v, want %+v", c.ID, got, want)
	}
	for i, q := range got {
		w := want[i]
		w.ID, w.AgentID, w.ConversationID = q.ID, c.AgentID, c.ID
		if !w.At.IsZero() {
			sameTime(t, "question At", q.At, w.At)
			w.At = q.At
		}
		if q != w {
			t.Fatalf("question %d of %s: %+v, want %+v", i, c.ID, q, w)
		}
	}
}

// testOutcomeMessages: what visitor and AI messages alone make of a
// conversation, through AddMessage and AddExchange, with the questions
// the agent could not answer recorded as they are stored.
func testOutcomeMessages(t *testing.T, s store.Store, raw Raw) {
	ctx := t.Context()
	f := setup(t, s, many)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	visitor := func(id, text string, sec int) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: text, CreatedAt: at(sec)}
	}
	ai := func(id, text string, sec int, unanswered bool) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleAI, Text: text, CreatedAt: at(sec),
			RequireMode: domain.ModeAI, Unanswered: unanswered}
	}

	// Opened, never asked: abandoned, whatever the agent said (a greeting
	// is not stored, but an AI message alone asks nothing either).
	c := f.conversation(t, s, base)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeAbandoned)
	add(t, s, ai(c.ID, "Hello! How can I help?", 1, false))
	got := outcomeIs(t, s, raw, c.ID, domain.OutcomeAbandoned)
	if got.Asked || !got.Answered {
		t.Fatalf("after an AI message alone: asked %v answered %v", got.Asked, got.Answered)
	}

	// Asked, not answered yet: unanswered; answered: resolved.
	c = f.conversation(t, s, base)
	add(t, s, visitor(c.ID, "opening hours?", 1))
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeUnanswered)
	if !got.Asked || got.Answered {
		t.Fatalf("asked: asked %v answered %v", got.Asked, got.Answered)
	}
	add(t, s, ai(c.ID, "9 to 18", 2, false))
	outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)
	questionsAre(t, raw, c) // an answer records no question

	// The exchange path: a reply that could not answer records the
	// visitor's message as its question, in the widget's language.
	c = f.conversation(t, s, base)
	miss := ai(c.ID, "Sorry, I do not know that.", 2, true)
	miss.Lang = "ro"
	_, missSeq, err := s.AddExchange(ctx, visitor(c.ID, "aveți parcare?", 1), miss)
	noErr(t, "AddExchange", err)
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeUnanswered)
	if got.Misses != 1 || got.Answered {
		t.Fatalf("after a miss: %+v", got)
	}
	questionsAre(t, raw, c, store.Question{Seq: missSeq, Text: "aveți parcare?", Lang: "ro", Reason: store.QuestionUnanswered, At: at(2)})

	// Answered next: resolved (its last reply answered); the question
	// stays, the gap was there.
	_, _, err = s.AddExchange(ctx, visitor(c.ID, "and opening hours?", 3), ai(c.ID, "9 to 18", 4, false))
	noErr(t, "AddExchange", err)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)

	// Missed again, through AddMessage: unanswered; the question is what
	// the caller says it is (NewMessage.Question), else the newest visitor
	// message before the reply.
	add(t, s, visitor(c.ID, "do you ship to Chișinău?", 5))
	told := ai(c.ID, "I am not sure.", 6, true)
	told.Question, told.Lang = "shipping to Chisinau", "en"
	toldMsg, _ := add(t, s, told)
	add(t, s, visitor(c.ID, "and to Kyiv?", 7))
	untold, _ := add(t, s, ai(c.ID, "I am not sure either.", 8, true))
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeUnanswered)
	if got.Misses != 2 || !got.Answered {
		t.Fatalf("after two misses: %+v", got)
	}
	questionsAre(t, raw, c,
		store.Question{Seq: missSeq, Text: "aveți parcare?", Lang: "ro", Reason: store.QuestionUnanswered, At: at(2)},
		store.Question{Seq: toldMsg.Seq, Text: "shipping to Chisinau", Lang: "en", Reason: store.QuestionUnanswered, At: at(6)},
		store.Question{Seq: untold.Seq, Text: "and to Kyiv?", Lang: "", Reason: store.QuestionUnanswered, At: at(8)})

	// The agent hands over with its reply (the second miss, or the
	// visitor asked for a person): handed off, from the reply's time, and
	// nothing the AI says later changes that.
	c = f.conversation(t, s, base)
	handoff := ai(c.ID, "I have asked a colleague to help.", 2, true)
	handoff.SetWaiting = true
	_, _, err = s.AddExchange(ctx, visitor(c.ID, "refund?", 1), handoff)
	noErr(t, "AddExchange handoff", err)
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	sameTime(t, "HandedAt", got.HandedAt, at(2))
	_, _, err = s.AddExchange(ctx, visitor(c.ID, "hello?", 3), ai(c.ID, "A colleague will answer.", 4, false))
	noErr(t, "AddExchange after handoff", err)
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	sameTime(t, "HandedAt after", got.HandedAt, at(2))
	if _, ok := got.FirstResponse(); ok {
		t.Fatalf("no operator wrote, yet FirstResponse is known: %+v", got)
	}
}

// testOutcomeOperators: an operator's first message is recorded once, and
// the wait for it (FirstResponse) runs from the handoff; an operator who
// takes a conversation over with their own message answered at once.
func testOutcomeOperators(t *testing.T, s store.Store, raw Raw) {
	ctx := t.Context()
	f := setup(t, s, many)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	operator := func(id, text string, sec int) store.NewMessage {
		return store.NewMessage{ConversationID: id, Role: domain.RoleOperator, Text: text, OperatorName: "Ana",
			CreatedAt: at(sec), SetMode: domain.ModeHuman}
	}

	// Waiting since the AI's handoff, answered 90 seconds later.
	c := f.conversation(t, s, base)
	handoff := store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "Asking a person.", CreatedAt: at(10),
		RequireMode: domain.ModeAI, SetWaiting: true}
	_, _, err := s.AddExchange(ctx, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "a person please", CreatedAt: at(9)}, handoff)
	noErr(t, "AddExchange", err)
	add(t, s, operator(c.ID, "Hi, Ana here.", 100))
	add(t, s, operator(c.ID, "Anything else?", 200))
	got := outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	sameTime(t, "HandedAt", got.HandedAt, at(10))
	sameTime(t, "FirstOperatorAt", got.FirstOperatorAt, at(100)) // the first, not the latest
	if d, ok := got.FirstResponse(); !ok || d != 90*time.Second {
		t.Fatalf("FirstResponse = %v, %v; want 90s", d, ok)
	}

	// An operator who writes first takes it over: handed off and answered
	// at that moment. The visitor had asked: handed off.
	c = f.conversation(t, s, base)
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "anyone?", CreatedAt: at(1)})
	add(t, s, operator(c.ID, "Yes, me.", 5))
	got = outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
	sameTime(t, "HandedAt", got.HandedAt, at(5))
	if d, ok := got.FirstResponse(); !ok || d != 0 {
		t.Fatalf("FirstResponse of a takeover by message = %v, %v; want 0", d, ok)
	}

	// An operator writing in a conversation nobody asked anything in:
	// handed off, but abandoned (the visitor never wrote) until they do.
	c = f.conversation(t, s, base)
	add(t, s, operator(c.ID, "Can I help you?", 1))
	outcomeIs(t, s, raw, c.ID, domain.OutcomeAbandoned)
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "yes: prices?", CreatedAt: at(2)})
	outcomeIs(t, s, raw, c.ID, domain.OutcomeHandedOff)
}

// testFeedbackQuestions: a thumbs down records the question the answer
// answered (the newest visitor message before it, at the answer's time,
// language unknown), a thumbs up takes it back; an unanswered reply's own
// question stays whatever the thumbs; the stored outcome follows.
func testFeedbackQuestions(t *testing.T, s store.Store, raw Raw) {
	ctx := t.Context()
	f := setup(t, s, many)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	c := f.conversation(t, s, base)
	exchange := func(q, a string, sec int, unanswered bool) int64 {
		t.Helper()
		_, seq, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: q, CreatedAt: at(sec)},
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: a, CreatedAt: at(sec + 1), RequireMode: domain.ModeAI,
				Unanswered: unanswered, Lang: "en"})
		noErr(t, "AddExchange", err)
		return seq
	}
	feedback := func(seq int64, helpful bool) {
		t.Helper()
		_, _, err := s.SetFeedback(ctx, c.ID, seq, helpful)
		noErr(t, "SetFeedback", err)
	}
	missed := exchange("do you deliver on sundays?", "I do not know.", 1, true)
	answered := exchange("opening hours?", "9 to 18", 3, false)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)
	unanswered := store.Question{Seq: missed, Text: "do you deliver on sundays?", Lang: "en", Reason: store.QuestionUnanswered, At: at(2)}
	notHelpful := store.Question{Seq: answered, Text: "opening hours?", Reason: store.QuestionNotHelpful, At: at(4)}

	feedback(answered, false)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeUnanswered)
	questionsAre(t, raw, c, unanswered, notHelpful)
	feedback(answered, false) // unchanged: still one row
	questionsAre(t, raw, c, unanswered, notHelpful)
	feedback(answered, true)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)
	questionsAre(t, raw, c, unanswered)

	// Thumbs on the reply that could not answer: its question is the
	// unanswered one, kept either way.
	feedback(missed, false)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeUnanswered)
	questionsAre(t, raw, c, unanswered)
	feedback(missed, true)
	outcomeIs(t, s, raw, c.ID, domain.OutcomeResolved)
	questionsAre(t, raw, c, unanswered)

	// An AI message with no visitor message before it answered no
	// question: a thumbs down on it records none.
	lone := f.conversation(t, s, base)
	m, _ := add(t, s, store.NewMessage{ConversationID: lone.ID, Role: domain.RoleAI, Text: "Welcome!", CreatedAt: at(1)})
	_, _, err := s.SetFeedback(ctx, lone.ID, m.Seq, false)
	noErr(t, "SetFeedback", err)
	got := outcomeIs(t, s, raw, lone.ID, domain.OutcomeAbandoned)
	if got.NotHelpful != 1 {
		t.Fatalf("NotHelpful %d", got.NotHelpful)
	}
	questionsAre(t, raw, lone)
}

// testQuestionsGoWithConversations: a conversation's questions are
// deleted with it, by the visitor's erasure and by retention, and no
// other's are.
func testQuestionsGoWithConversations(t *testing.T, s store.Store, raw Raw) {
	ctx := t.Context()
	f := setup(t, s, many)
	withQuestion := func(at time.Time) domain.Conversation {
		t.Helper()
		c := f.conversation(t, s, at)
		_, seq, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "parking?", CreatedAt: at},
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "No idea.", CreatedAt: at, RequireMode: domain.ModeAI, Unanswered: true})
		noErr(t, "AddExchange", err)
		_, seq2, err := s.AddExchange(ctx,
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hours?", CreatedAt: at},
			store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: "9 to 18", CreatedAt: at, RequireMode: domain.ModeAI})
		noErr(t, "AddExchange", err)
		_, _, err = s.SetFeedback(ctx, c.ID, seq2, false)
		noErr(t, "SetFeedback", err)
		if n := len(raw.StoredQuestions(t, c.ID)); n != 2 || seq == 0 {
			t.Fatalf("%d questions recorded, want 2", n)
		}
		return c
	}
	erased, kept := withQuestion(base), withQuestion(base)
	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, f.account.ID, erased.VisitorID))
	questionsAre(t, raw, erased)
	if n := len(raw.StoredQuestions(t, kept.ID)); n != 2 {
		t.Fatalf("another visitor's conversation kept %d questions, want 2", n)
	}

	old, recent := withQuestion(base.AddDate(0, 0, -40)), withQuestion(base)
	n, err := s.PurgeConversations(ctx, f.account.ID, base.AddDate(0, 0, -30), 100)
	noErr(t, "PurgeConversations", err)
	if n != 1 {
		t.Fatalf("purged %d conversations, want 1", n)
	}
	questionsAre(t, raw, old)
	if n := len(raw.StoredQuestions(t, recent.ID)); n != 2 {
		t.Fatalf("a recent conversation kept %d questions, want 2", n)
	}
}
