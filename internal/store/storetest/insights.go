package storetest

import (
	"reflect"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The owner's reports (issue 20, store.Insights), fed by real message
// sequences, handoffs, thumbs and ratings, never by rows written for the
// test.

// insightsDay is 00:00 UTC of day d after base's, plus h hours and min
// minutes.
func insightsDay(d, h, min int) time.Time {
	return time.Date(2025, time.March, 10+d, h, min, 0, 0, time.UTC)
}

// conversationOf starts a conversation of agentID in f's account at at.
func (f fixture) conversationOf(t *testing.T, s store.Store, agentID string, at time.Time) domain.Conversation {
	t.Helper()
	n := f.newConversation(at)
	n.AgentID = agentID
	c, err := s.CreateConversation(t.Context(), n)
	noErr(t, "CreateConversation", err)
	return c
}

// exchange stores a visitor's question and the AI's reply a second later,
// and returns the reply's seq.
func exchange(t *testing.T, s store.Store, c domain.Conversation, q, a string, at time.Time, unanswered bool) int64 {
	t.Helper()
	_, seq, err := s.AddExchange(t.Context(),
		store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: q, CreatedAt: at},
		store.NewMessage{ConversationID: c.ID, Role: domain.RoleAI, Text: a, CreatedAt: at.Add(time.Second),
			RequireMode: domain.ModeAI, Unanswered: unanswered, Question: q, Lang: "en"})
	noErr(t, "AddExchange", err)
	if seq == 0 {
		t.Fatal("AddExchange did not store the reply")
	}
	return seq
}

// handOff stores a visitor's message asking for a person at at and an
// operator's reply after wait (the operator taking the conversation).
func handOff(t *testing.T, s store.Store, c domain.Conversation, at time.Time, wait time.Duration) {
	t.Helper()
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "a person, please", CreatedAt: at, SetWaiting: true})
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: "Hi, Olga here.", OperatorName: "Olga",
		CreatedAt: at.Add(wait), SetMode: domain.ModeHuman})
}

func rate(t *testing.T, s store.Store, c domain.Conversation, score int) {
	t.Helper()
	noErr(t, "SetRating", s.SetRating(t.Context(), store.Rating{ConversationID: c.ID, AccountID: c.AccountID, Rating: score, At: c.CreatedAt.Add(time.Hour)}))
}

func feedback(t *testing.T, s store.Store, c domain.Conversation, seq int64, helpful bool) {
	t.Helper()
	_, _, err := s.SetFeedback(t.Context(), c.ID, seq, helpful)
	noErr(t, "SetFeedback", err)
}

// testInsightsReport: a report counts the period's conversations by the
// UTC day they started and their outcome as it stands, the thumbs on
// them, the hours they started in, the operators' first responses
// (shortest first) and their ratings; of one agent when asked; the
// period's edges exact to the millisecond whether or not they fall on an
// hour; another account's never.
func testInsightsReport(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ag2, _ := newAgent(t, s, f.account.ID)
	other := setup(t, s, many)

	// Day 0: resolved with a thumbs up, abandoned, unanswered (its last
	// millisecond).
	c1 := f.conversationOf(t, s, f.agent.ID, insightsDay(0, 9, 15))
	feedback(t, s, c1, exchange(t, s, c1, "opening hours?", "9 to 18", insightsDay(0, 9, 16), false), true)
	rate(t, s, c1, 5)
	f.conversationOf(t, s, f.agent.ID, insightsDay(0, 9, 40))
	c3 := f.conversationOf(t, s, f.agent.ID, insightsDay(0, 23, 59).Add(59999*time.Millisecond))
	exchange(t, s, c3, "do you deliver on sundays?", "I do not know.", c3.CreatedAt, true)
	// Day 1, agent 2: handed off, answered 90 s after the visitor asked
	// for a person; resolved, then a thumbs down: unanswered.
	c4 := f.conversationOf(t, s, ag2.ID, insightsDay(1, 10, 5))
	exchange(t, s, c4, "refund?", "Within 14 days.", insightsDay(1, 10, 6), false)
	handOff(t, s, c4, insightsDay(1, 10, 7), 90*time.Second)
	rate(t, s, c4, 2)
	c5 := f.conversationOf(t, s, ag2.ID, insightsDay(1, 10, 30))
	feedback(t, s, c5, exchange(t, s, c5, "parking?", "Behind the shop.", insightsDay(1, 10, 31), false), false)
	// Day 2: resolved at its first millisecond; taken over (the operator
	// wrote before the takeover's time: a first response of 0).
	c6 := f.conversationOf(t, s, f.agent.ID, insightsDay(2, 0, 0))
	exchange(t, s, c6, "phone number?", "+373 22 000 000", c6.CreatedAt, false)
	c9 := f.conversationOf(t, s, f.agent.ID, insightsDay(2, 15, 0))
	add(t, s, store.NewMessage{ConversationID: c9.ID, Role: domain.RoleVisitor, Text: "hello?", CreatedAt: insightsDay(2, 15, 0)})
	_, won, err := s.TakeOver(ctx, c9.ID, "", "Olga")
	if err != nil || !won {
		t.Fatalf("TakeOver: %v %v", won, err)
	}
	add(t, s, store.NewMessage{ConversationID: c9.ID, Role: domain.RoleOperator, Text: "Hi!", OperatorName: "Olga",
		CreatedAt: insightsDay(2, 15, 1), RequireMode: domain.ModeHuman})
	// Outside the period, before and at its end, rated; another account's
	// inside it.
	before := f.conversationOf(t, s, f.agent.ID, insightsDay(0, 0, 0).Add(-time.Millisecond))
	exchange(t, s, before, "hi", "hello", before.CreatedAt, false)
	rate(t, s, before, 1)
	after := f.conversationOf(t, s, f.agent.ID, insightsDay(3, 0, 0))
	exchange(t, s, after, "hi", "hello", after.CreatedAt, false)
	rate(t, s, after, 4)
	theirs := other.conversationOf(t, s, other.agent.ID, insightsDay(0, 9, 15))
	feedback(t, s, theirs, exchange(t, s, theirs, "hi", "hello", theirs.CreatedAt, false), false)
	rate(t, s, theirs, 3)

	day := func(d int, resolved, handedOff, unanswered, abandoned, helpful, notHelpful int) store.DayOutcomes {
		return store.DayOutcomes{Day: insightsDay(d, 0, 0), Conversations: resolved + handedOff + unanswered + abandoned,
			Resolved: resolved, HandedOff: handedOff, Unanswered: unanswered, Abandoned: abandoned, Helpful: helpful, NotHelpful: notHelpful}
	}
	hours := func(h ...int) (out [24]int) {
		for i := 0; i < len(h); i += 2 {
			out[h[i]] = h[i+1]
		}
		return out
	}
	ratings := func(scores ...int) (r store.RatingStats) {
		for _, sc := range scores {
			r.Add(sc, 1)
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		account string
		f       store.ReportFilter
		want    store.Report
	}{
		{"three whole days", f.account.ID, store.ReportFilter{From: insightsDay(0, 0, 0), To: insightsDay(3, 0, 0)}, store.Report{
			Days:           []store.DayOutcomes{day(0, 1, 0, 1, 1, 1, 0), day(1, 0, 1, 1, 0, 0, 1), day(2, 1, 1, 0, 0, 0, 0)},
			Hours:          hours(0, 1, 9, 2, 10, 2, 15, 1, 23, 1),
			FirstResponses: []time.Duration{0, 90 * time.Second},
			Ratings:        ratings(5, 2),
		}},
		{"one agent", f.account.ID, store.ReportFilter{AgentID: ag2.ID, From: insightsDay(0, 0, 0), To: insightsDay(3, 0, 0)}, store.Report{
			Days:           []store.DayOutcomes{day(0, 0, 0, 0, 0, 0, 0), day(1, 0, 1, 1, 0, 0, 1), day(2, 0, 0, 0, 0, 0, 0)},
			Hours:          hours(10, 2),
			FirstResponses: []time.Duration{90 * time.Second},
			Ratings:        ratings(2),
		}},
		// Edges inside hours: 09:30 leaves out c1 (09:15); an end one
		// millisecond into day 2 takes in c6, started at its first, and
		// lists day 2.
		{"edges inside hours", f.account.ID, store.ReportFilter{From: insightsDay(0, 9, 30), To: insightsDay(2, 0, 0).Add(time.Millisecond)}, store.Report{
			Days:           []store.DayOutcomes{day(0, 0, 0, 1, 1, 0, 0), day(1, 0, 1, 1, 0, 0, 1), day(2, 1, 0, 0, 0, 0, 0)},
			Hours:          hours(0, 1, 9, 1, 10, 2, 23, 1),
			FirstResponses: []time.Duration{90 * time.Second},
			Ratings:        ratings(2),
		}},
		{"within an hour", f.account.ID, store.ReportFilter{From: insightsDay(0, 9, 15), To: insightsDay(0, 9, 40)}, store.Report{
			Days:           []store.DayOutcomes{day(0, 1, 0, 0, 0, 1, 0)},
			Hours:          hours(9, 1),
			FirstResponses: []time.Duration{},
			Ratings:        ratings(5),
		}},
		{"another account", other.account.ID, store.ReportFilter{From: insightsDay(0, 0, 0), To: insightsDay(1, 0, 0)}, store.Report{
			Days:           []store.DayOutcomes{day(0, 0, 0, 1, 0, 0, 1)},
			Hours:          hours(9, 1),
			FirstResponses: []time.Duration{},
			Ratings:        ratings(3),
		}},
		{"another account's agent", f.account.ID, store.ReportFilter{AgentID: other.agent.ID, From: insightsDay(0, 0, 0), To: insightsDay(1, 0, 0)}, store.Report{
			Days:           []store.DayOutcomes{day(0, 0, 0, 0, 0, 0, 0)},
			FirstResponses: []time.Duration{},
		}},
		{"empty period", f.account.ID, store.ReportFilter{From: insightsDay(1, 0, 0), To: insightsDay(1, 0, 0)}, store.Report{
			Days:           []store.DayOutcomes{},
			FirstResponses: []time.Duration{},
		}},
	} {
		got, err := s.Report(ctx, tc.account, tc.f)
		noErr(t, tc.name, err)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}

	// The report follows the conversations as they change: c5's thumbs
	// taken back makes it resolved, day 1's counts with it.
	feedback(t, s, c5, lastAI(t, s, c5), true)
	got, err := s.Report(ctx, f.account.ID, store.ReportFilter{From: insightsDay(1, 0, 0), To: insightsDay(2, 0, 0)})
	noErr(t, "Report", err)
	if want := []store.DayOutcomes{day(1, 1, 1, 0, 0, 1, 0)}; !reflect.DeepEqual(got.Days, want) {
		t.Errorf("after the thumbs changed: %+v, want %+v", got.Days, want)
	}
}

// lastAI is the seq of c's newest AI message.
func lastAI(t *testing.T, s store.Store, c domain.Conversation) int64 {
	t.Helper()
	var seq int64
	for _, m := range messages(t, s, c.ID) {
		if m.Role == domain.RoleAI {
			seq = m.Seq
		}
	}
	return seq
}

// testInsightsQuestions: the questions recorded by unanswered replies and
// thumbs-downs are listed newest first, of the period, of one agent when
// asked, at most the limit (clamped to 1..MaxQuestions); resolving marks
// the account's own alone, and the open list leaves them out.
func testInsightsQuestions(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ag2, _ := newAgent(t, s, f.account.ID)
	other := setup(t, s, many)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }

	c1 := f.conversationOf(t, s, f.agent.ID, base)
	seq1 := exchange(t, s, c1, "do you deliver on sundays?", "I do not know.", at(1), true)
	c2 := f.conversationOf(t, s, ag2.ID, base)
	seq2 := exchange(t, s, c2, "opening hours?", "9 to 18", at(10), false)
	feedback(t, s, c2, seq2, false)
	seq3 := exchange(t, s, c1, "aveți parcare?", "Nu știu.", at(20), true)
	theirs := other.conversationOf(t, s, other.agent.ID, base)
	exchange(t, s, theirs, "do you deliver on sundays?", "I do not know.", at(1), true)

	q1 := store.Question{AgentID: f.agent.ID, ConversationID: c1.ID, Seq: seq1, Text: "do you deliver on sundays?", Lang: "en",
		Reason: store.QuestionUnanswered, At: at(2)}
	q2 := store.Question{AgentID: ag2.ID, ConversationID: c2.ID, Seq: seq2, Text: "opening hours?",
		Reason: store.QuestionNotHelpful, At: at(11)}
	q3 := store.Question{AgentID: f.agent.ID, ConversationID: c1.ID, Seq: seq3, Text: "aveți parcare?", Lang: "en",
		Reason: store.QuestionUnanswered, At: at(21)}
	list := func(account string, qf store.QuestionFilter, want ...store.Question) []store.Question {
		t.Helper()
		got, err := s.Questions(ctx, account, qf)
		noErr(t, "Questions", err)
		if len(got) != len(want) {
			t.Fatalf("Questions(%+v) = %+v, want %+v", qf, got, want)
		}
		for i := range got {
			w := want[i]
			w.ID = got[i].ID // assigned by the store
			if got[i] != w || got[i].ID == 0 {
				t.Fatalf("Questions(%+v)[%d] = %+v, want %+v", qf, i, got[i], w)
			}
		}
		return got
	}
	hour := store.QuestionFilter{From: base, To: base.Add(time.Hour), Limit: 10}
	all := list(f.account.ID, hour, q3, q2, q1)
	byAgent := hour
	byAgent.AgentID = ag2.ID
	list(f.account.ID, byAgent, q2)
	byAgent.AgentID = other.agent.ID
	list(f.account.ID, byAgent)
	list(f.account.ID, store.QuestionFilter{From: at(2), To: at(21), Limit: 10}, q2, q1) // [From, To)
	limited := hour
	limited.Limit = 2
	list(f.account.ID, limited, q3, q2)
	limited.Limit = 0
	list(f.account.ID, limited, q3)
	theirQs := list(other.account.ID, hour, store.Question{AgentID: other.agent.ID, ConversationID: theirs.ID, Seq: lastAI(t, s, theirs),
		Text: "do you deliver on sundays?", Lang: "en", Reason: store.QuestionUnanswered, At: at(2)})

	// Resolving: the account's own ids alone, unknown ones ignored.
	n, err := s.ResolveQuestions(ctx, f.account.ID, []int64{all[2].ID, theirQs[0].ID, all[2].ID + 1_000_000}, "kn_1")
	noErr(t, "ResolveQuestions", err)
	if n != 1 {
		t.Fatalf("ResolveQuestions marked %d, want 1", n)
	}
	if n, err := s.ResolveQuestions(ctx, f.account.ID, nil, "kn_1"); err != nil || n != 0 {
		t.Fatalf("ResolveQuestions(none) = %d, %v", n, err)
	}
	q1.EntryID = "kn_1"
	list(f.account.ID, hour, q3, q2, q1)
	open := hour
	open.Open = true
	list(f.account.ID, open, q3, q2)
	list(other.account.ID, open, theirQs[0])
}

// testOperatorAnswers: an operator's message is a first reply when the
// message before it, the AI's left out, is the visitor's; the pairs of
// the period's conversations are listed newest first, of one agent when
// asked, at most the limit, another account's never.
func testOperatorAnswers(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	ag2, _ := newAgent(t, s, f.account.ID)
	other := setup(t, s, many)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	msg := func(c domain.Conversation, role domain.Role, text string, sec int) {
		t.Helper()
		m := store.NewMessage{ConversationID: c.ID, Role: role, Text: text, CreatedAt: at(sec)}
		if role == domain.RoleOperator {
			m.OperatorName, m.SetMode = "Olga", domain.ModeHuman
		}
		add(t, s, m)
	}

	c1 := f.conversationOf(t, s, f.agent.ID, base)
	exchange(t, s, c1, "opening hours?", "9 to 18", at(1), false)
	msg(c1, domain.RoleVisitor, "can I talk to a person?", 3)
	msg(c1, domain.RoleOperator, "Hi, Olga here.", 60)
	msg(c1, domain.RoleOperator, "Anything else?", 70) // after her own: not a reply
	msg(c1, domain.RoleVisitor, "my order 42 is late", 80)
	msg(c1, domain.RoleOperator, "It ships tomorrow.", 90)
	c2 := f.conversationOf(t, s, ag2.ID, at(3600))
	exchange(t, s, c2, "refund?", "I do not know.", at(3601), true) // the AI between: still a reply
	msg(c2, domain.RoleOperator, "Refunds take 5 days.", 3630)
	c3 := f.conversationOf(t, s, f.agent.ID, at(3700))
	msg(c3, domain.RoleOperator, "Can I help?", 3701) // nobody asked
	early := f.conversationOf(t, s, f.agent.ID, base.Add(-time.Millisecond))
	msg(early, domain.RoleVisitor, "hello?", 100)
	msg(early, domain.RoleOperator, "Hello!", 101)
	theirs := other.conversationOf(t, s, other.agent.ID, base)
	msg(theirs, domain.RoleVisitor, "hello?", 100)
	msg(theirs, domain.RoleOperator, "Hello!", 101)

	answer := func(c domain.Conversation, q, a string, sec int) store.OperatorAnswer {
		return store.OperatorAnswer{AgentID: c.AgentID, ConversationID: c.ID, Question: q, Answer: a, OperatorName: "Olga", At: at(sec)}
	}
	a1 := answer(c1, "can I talk to a person?", "Hi, Olga here.", 60)
	a2 := answer(c1, "my order 42 is late", "It ships tomorrow.", 90)
	a3 := answer(c2, "refund?", "Refunds take 5 days.", 3630)
	day := store.QuestionFilter{From: base, To: base.Add(store.UTCDay), Limit: 10}
	for _, tc := range []struct {
		name    string
		account string
		f       store.QuestionFilter
		want    []store.OperatorAnswer
	}{
		{"the day", f.account.ID, day, []store.OperatorAnswer{a3, a2, a1}},
		{"one agent", f.account.ID, store.QuestionFilter{AgentID: ag2.ID, From: base, To: base.Add(store.UTCDay), Limit: 10}, []store.OperatorAnswer{a3}},
		{"limit", f.account.ID, store.QuestionFilter{From: base, To: base.Add(store.UTCDay), Limit: 2}, []store.OperatorAnswer{a3, a2}},
		{"conversations started before", f.account.ID, store.QuestionFilter{From: base.Add(-time.Hour), To: base, Limit: 10},
			[]store.OperatorAnswer{answer(early, "hello?", "Hello!", 101)}},
		{"another account", other.account.ID, day, []store.OperatorAnswer{answer(theirs, "hello?", "Hello!", 101)}},
	} {
		got, err := s.OperatorAnswers(ctx, tc.account, tc.f)
		noErr(t, tc.name, err)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
