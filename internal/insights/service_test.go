package insights_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"parley/internal/agentadmin"
	"parley/internal/domain"
	"parley/internal/insights"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/teststores"
)

// The service on both real stores: conversations written message by
// message as the chat service writes them, then read back as the
// reports, gaps and suggestions an owner sees.

var stores = teststores.New("insights")

func TestMain(m *testing.M) {
	code := m.Run()
	stores.Close()
	os.Exit(code)
}

// rig is one account with one agent on a store, and the service.
type rig struct {
	t       *testing.T
	ctx     context.Context
	st      store.Store
	svc     *insights.Service
	admin   *agentadmin.Service
	account string
	agent   string
	day     time.Time // the test's day; conversations start in its hours
	n       int
}

func newRig(t *testing.T, st store.Store) *rig {
	ctx := context.Background()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("o", 8) + "@example.com", Name: "Shop", PasswordHash: "x", Limits: domain.Limits{MonthlyConversations: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Help", Config: []byte(`{}`), Key: secret.WidgetKey(),
		Knowledge: []domain.KnowledgeEntry{{Question: "What are your opening hours?", Answer: "9 to 17."}}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	admin := agentadmin.New(agentadmin.Options{Store: st})
	return &rig{t: t, ctx: ctx, st: st, admin: admin, account: acc.ID, agent: ag.ID, day: day,
		svc: insights.New(st, admin, func() time.Time { return day.Add(23 * time.Hour) })}
}

// conv starts a conversation at the hour of the rig's day.
func (r *rig) conv(hour int) *conv {
	r.t.Helper()
	r.n++
	at := r.day.Add(time.Duration(hour) * time.Hour)
	c, err := r.st.CreateConversation(r.ctx, store.NewConversation{ID: "cv_" + secret.ID("", 12), AgentID: r.agent, AccountID: r.account, VisitorID: "v" + strconv.Itoa(r.n), CreatedAt: at})
	if err != nil {
		r.t.Fatal(err)
	}
	return &conv{r: r, id: c.ID, at: at}
}

type conv struct {
	r  *rig
	id string
	at time.Time
}

func (c *conv) add(m store.NewMessage) domain.Message {
	c.r.t.Helper()
	c.at = c.at.Add(time.Minute)
	m.ConversationID, m.CreatedAt = c.id, c.at
	msg, _, err := c.r.st.AddMessage(c.r.ctx, m)
	if err != nil {
		c.r.t.Fatal(err)
	}
	return msg
}

func (c *conv) visitor(text string) { c.add(store.NewMessage{Role: domain.RoleVisitor, Text: text}) }

// answered stores an AI reply that answered; missed one that could not,
// recording the visitor's question.
func (c *conv) answered(text string) domain.Message {
	return c.add(store.NewMessage{Role: domain.RoleAI, Text: text, RequireMode: domain.ModeAI})
}
func (c *conv) missed(question string) domain.Message {
	return c.add(store.NewMessage{Role: domain.RoleAI, Text: "I don't know.", RequireMode: domain.ModeAI, Unanswered: true, Question: question, Lang: "en"})
}
func (c *conv) operator(name, text string) {
	c.add(store.NewMessage{Role: domain.RoleOperator, Text: text, OperatorName: name, SetMode: domain.ModeHuman})
}

func (c *conv) ask(question string) domain.Message {
	c.visitor(question)
	return c.missed(question)
}

// The report counts each conversation by its outcome, with the thumbs,
// the first responses and the hours, and the rates over those asked.
func TestReport(t *testing.T) {
	t.Parallel()
	stores.Each(t, func(t *testing.T, st store.Store) {
		r := newRig(t, st)
		// Resolved, with a thumbs up.
		c := r.conv(9)
		c.visitor("What are your opening hours?")
		m := c.answered("9 to 17.")
		if _, _, err := st.SetFeedback(r.ctx, c.id, m.Seq, true); err != nil {
			t.Fatal(err)
		}
		// Answered but marked not helpful: unanswered.
		c = r.conv(9)
		c.visitor("When do you open?")
		m = c.answered("9 to 17.")
		if _, _, err := st.SetFeedback(r.ctx, c.id, m.Seq, false); err != nil {
			t.Fatal(err)
		}
		// Missed at the end: unanswered.
		r.conv(14).ask("Do you deliver on Sundays?")
		// Handed off, an operator answering 3 minutes after the wait began.
		c = r.conv(14)
		c.visitor("Talk to a human")
		c.add(store.NewMessage{Role: domain.RoleAI, Text: "A person will answer.", RequireMode: domain.ModeAI, SetWaiting: true})
		c.at = c.at.Add(2 * time.Minute)
		c.operator("Ana", "Hello, Ana here.")
		// Abandoned.
		r.conv(14)
		// Another day, another agent's: not in a one-day report of this agent.
		p, err := insights.ParsePeriod("2026-11-20", "2026-11-20", r.agent, r.day)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.svc.Report(r.ctx, r.account, p)
		if err != nil {
			t.Fatal(err)
		}
		tot := s.Totals
		if tot.Conversations != 5 || tot.Resolved != 1 || tot.Unanswered != 2 || tot.HandedOff != 1 || tot.Abandoned != 1 ||
			tot.Helpful != 1 || tot.NotHelpful != 1 {
			t.Fatalf("totals %+v", tot)
		}
		if *s.AIResolutionRate != 0.25 || *s.UnansweredRate != 0.5 || *s.HandoffRate != 0.25 {
			t.Fatalf("rates %v %v %v", *s.AIResolutionRate, *s.UnansweredRate, *s.HandoffRate)
		}
		if s.MedianFirstResponse == nil || *s.MedianFirstResponse != 3*time.Minute {
			t.Fatalf("median first response %v, want 3m", s.MedianFirstResponse)
		}
		if s.Hours[9] != 2 || s.Hours[14] != 3 || len(s.BusiestHours) != 2 || s.BusiestHours[0].Hour != 14 {
			t.Fatalf("hours %v, busiest %v", s.Hours, s.BusiestHours)
		}
		var csv strings.Builder
		if err := s.WriteCSV(&csv); err != nil || !strings.Contains(csv.String(), "2026-11-20,5,1,1,2,1,1,1\n") {
			t.Fatalf("CSV %q %v", csv.String(), err)
		}
		// Another account's agent is not found.
		other := newRig(t, st)
		if _, err := other.svc.Report(r.ctx, other.account, p); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another account's agent: %v", err)
		}
	})
}

// Three ways of asking one question are one gap; answering it adds the
// knowledge entry and resolves it, and a question asked again later is a
// new open gap only if the agent misses it again.
func TestGapsAndAnswer(t *testing.T) {
	t.Parallel()
	stores.Each(t, func(t *testing.T, st store.Store) {
		r := newRig(t, st)
		sunday := []string{"Do you deliver on Sundays?", "Can my order be delivered on a Sunday?", "is sunday delivery possible"}
		var convs []*conv
		for _, q := range sunday {
			c := r.conv(10)
			c.ask(q)
			convs = append(convs, c)
		}
		// An operator answered the second.
		convs[1].operator("Ana", "Yes, from 10 to 16.")
		r.conv(11).ask("Can I pay with Bitcoin?")
		p, _ := insights.ParsePeriod("", "", "", r.day)
		gaps, err := r.svc.Gaps(r.ctx, r.account, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(gaps) != 2 || gaps[0].Count != 3 || gaps[1].Count != 1 || gaps[0].Resolved || gaps[0].Lang != "en" ||
			len(gaps[0].Examples) != 3 || gaps[0].Unanswered != 3 {
			t.Fatalf("gaps %+v", gaps)
		}
		g, replies, err := r.svc.Gap(r.ctx, r.account, gaps[0].ID)
		if err != nil || g.Count != 3 || len(replies) != 1 || replies[0].Text != "Yes, from 10 to 16." || replies[0].OperatorName != "Ana" {
			t.Fatalf("Answer this: %+v %+v %v", g, replies, err)
		}
		if _, _, err := r.svc.Answer(r.ctx, r.account, gaps[0].ID, insights.AnswerInput{Answer: "  "}); err == nil {
			t.Fatal("an empty answer was taken")
		}
		e, g, err := r.svc.Answer(r.ctx, r.account, gaps[0].ID, insights.AnswerInput{Answer: "Yes, from 10 to 16."})
		if err != nil || !g.Resolved || g.EntryID != e.ID || e.Question != gaps[0].Question || e.Answer != "Yes, from 10 to 16." || e.Lang != "" {
			t.Fatalf("answer: %+v %+v %v", e, g, err)
		}
		kb, err := r.admin.Knowledge(r.ctx, r.account, r.agent)
		if err != nil || len(kb) != 2 || kb[1].ID != e.ID {
			t.Fatalf("knowledge after the answer: %+v %v", kb, err)
		}
		if _, _, err := r.svc.Answer(r.ctx, r.account, gaps[0].ID, insights.AnswerInput{Answer: "again"}); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("answering a resolved gap: %v, want a conflict", err)
		}
		for _, id := range []string{"gap_0", "gap_x", "nope", gaps[1].ID + "0"} {
			if _, _, err := r.svc.Gap(r.ctx, r.account, id); !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("gap %q: %v, want not found", id, err)
			}
		}
		if _, _, err := newRig(t, st).svc.Gap(r.ctx, "other", gaps[1].ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("another account's gap: %v", err)
		}
		gaps, err = r.svc.Gaps(r.ctx, r.account, p)
		if err != nil || len(gaps) != 2 || gaps[0].Resolved || gaps[0].Count != 1 || !gaps[1].Resolved || gaps[1].Count != 3 || gaps[1].EntryID != e.ID {
			t.Fatalf("gaps after the answer (open first, then resolved): %+v %v", gaps, err)
		}
	})
}

// Operators answering one question in two conversations suggest an
// entry; once the knowledge holds it, it is suggested no more.
func TestSuggestions(t *testing.T) {
	t.Parallel()
	stores.Each(t, func(t *testing.T, st store.Store) {
		r := newRig(t, st)
		for i, q := range []string{"Can I change my delivery address?", "how do I change the delivery address of my order"} {
			c := r.conv(12)
			c.visitor("Talk to a human")
			c.operator("Ana", "Hi!")
			c.visitor(q)
			c.operator("Ana", "Yes: reply with the new address"+strings.Repeat(".", i+1))
		}
		c := r.conv(13) // asked once: no suggestion
		c.visitor("Do you sell gift cards?")
		c.operator("Oleg", "Not yet.")
		p, _ := insights.ParsePeriod("", "", "", r.day)
		sgs, err := r.svc.Suggestions(r.ctx, r.account, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(sgs) != 1 || sgs[0].Conversations != 2 || sgs[0].Answer != "Yes: reply with the new address.." || len(sgs[0].Answers) != 2 || sgs[0].AgentID != r.agent {
			t.Fatalf("suggestions %+v", sgs)
		}
		if _, err := r.svc.Accept(r.ctx, r.account, r.agent, sgs[0].Question, "Yes: reply with the new address."); err != nil {
			t.Fatal(err)
		}
		if sgs, err = r.svc.Suggestions(r.ctx, r.account, p); err != nil || len(sgs) != 0 {
			t.Fatalf("suggestions after accepting: %+v %v", sgs, err)
		}
	})
}
