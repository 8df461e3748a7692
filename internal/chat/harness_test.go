package chat

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
)

// The service-level tests drive Service directly on a real SQLite store in
// a temporary directory, with a scripted responder and a clock the test
// moves: every conversation rule without HTTP in between.

// clock is a settable time source for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }

// script is a Responder that answers from a queue of replies (the last one
// repeats), counts its calls, and can be held until released or made to
// fail. Wrapped in instantScript it is an agent.Instant responder, and
// Chat takes the one-write path (chatInstant).
type script struct {
	mu      sync.Mutex
	replies []agent.Reply
	err     error
	calls   []agent.Request
	hold    chan struct{} // when set, Respond waits for it to close
	entered chan struct{} // when set, told of each call before it holds
}

func (s *script) Respond(ctx context.Context, req agent.Request) (agent.Reply, error) {
	s.mu.Lock()
	s.calls = append(s.calls, req)
	hold, entered, err := s.hold, s.entered, s.err
	var r agent.Reply
	if len(s.replies) > 0 {
		r = s.replies[0]
		if len(s.replies) > 1 {
			s.replies = s.replies[1:]
		}
		// A fresh slice per reply, as the real responders make: the
		// service may trim the options in place.
		r.Options = slices.Clone(r.Options)
	}
	s.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return agent.Reply{}, ctx.Err()
		}
	}
	return r, err
}

func (s *script) Calls() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.calls) }

// instantScript is script as an agent.Instant responder.
type instantScript struct{ *script }

func (instantScript) Instant(domain.Agent) bool { return true }

// published records the notifier's topics, on top of a real Hub.
type published struct {
	*notify.Hub
	mu     sync.Mutex
	topics []string
}

func (p *published) Publish(topic string) {
	p.mu.Lock()
	p.topics = append(p.topics, topic)
	p.mu.Unlock()
	p.Hub.Publish(topic)
}

// take returns the topics published since the last take.
func (p *published) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.topics
	p.topics = nil
	return t
}

// observed records what the service tells its Observer.
type observed struct {
	mu      sync.Mutex
	aiErrs  []error
	refused []string
}

func (o *observed) AIDone(_ time.Duration, err error) {
	o.mu.Lock()
	o.aiErrs = append(o.aiErrs, err)
	o.mu.Unlock()
}

func (o *observed) QuotaRefused(reason string) {
	o.mu.Lock()
	o.refused = append(o.refused, reason)
	o.mu.Unlock()
}

// fixture is a Service over a fresh store with one account and one agent.
type fixture struct {
	t        *testing.T
	ctx      context.Context
	store    store.Store
	svc      *Service
	ai       *script
	clock    *clock
	notes    *published
	observer *observed
	account  domain.Account
	agent    domain.Agent
	key      string
}

type fixtureOptions struct {
	instant     bool          // the responder answers from memory (the knowledge base)
	limits      domain.Limits // zero: 1000 conversations a month
	config      string        // the agent's config; "" is "{}"
	maxMessages int           // 0: the default cap
	aiTimeout   time.Duration // 0: the default
	replies     []agent.Reply // nil: one answered reply
	// knowledgeBase answers with the real knowledge-base agent over the
	// fixture's store, from knowledge (the AI script is not used).
	knowledgeBase bool
	knowledge     []domain.KnowledgeEntry
}

// start is the fixture's first instant: the middle of a month, so a month
// boundary is a known step away.
var start = time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, ctx: ctx, store: st, clock: &clock{now: start}, notes: &published{Hub: notify.NewHub()}, observer: &observed{}}
	f.ai = &script{replies: o.replies}
	if f.ai.replies == nil {
		f.ai.replies = []agent.Reply{{Text: "We open at 9.", Options: []string{"Shipping?"}}}
	}
	var responder agent.Responder = f.ai
	if o.instant {
		responder = instantScript{f.ai}
	}
	if o.knowledgeBase {
		kb := agent.NewKB(st, agent.KBOptions{})
		t.Cleanup(kb.Stop)
		responder = kb
	}
	if o.limits == (domain.Limits{}) {
		o.limits = domain.Limits{MonthlyConversations: 1000}
	}
	if o.config == "" {
		o.config = "{}"
	}
	f.account, err = st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("u", 6) + "@example.com", Name: "Ana", PasswordHash: "x", Limits: o.limits})
	if err != nil {
		t.Fatal(err)
	}
	f.agent, f.key = f.newAgent(f.account.ID, o.config, o.knowledge...)
	f.svc = New(Options{Store: st, Responder: responder, Notifier: f.notes, Now: f.clock.Now, Observer: f.observer,
		Logger: slog.New(slog.DiscardHandler), MaxMessages: o.maxMessages, AITimeout: o.aiTimeout})
	t.Cleanup(f.svc.Stop)
	return f
}

func (f *fixture) newAgent(accountID, config string, knowledge ...domain.KnowledgeEntry) (domain.Agent, string) {
	f.t.Helper()
	key := secret.WidgetKey()
	ag, err := f.store.CreateAgent(f.ctx, store.NewAgent{AccountID: accountID, ChatbotName: "Helper", Config: json.RawMessage(config), Key: key, Knowledge: knowledge})
	if err != nil {
		f.t.Fatal(err)
	}
	return ag, key
}

// init starts a conversation with the fixture's agent.
func (f *fixture) init() string {
	f.t.Helper()
	res, err := f.svc.Init(f.ctx, InitInput{Key: f.key})
	if err != nil {
		f.t.Fatalf("Init: %v", err)
	}
	return res.ConversationID
}

func (f *fixture) chat(conv, text string) (ChatResult, error) {
	return f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: text})
}

// conv reads a conversation as stored.
func (f *fixture) conv(id string) domain.Conversation {
	f.t.Helper()
	c, err := f.store.Conversation(f.ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// transcript is the conversation's messages as "role: text", oldest first.
func (f *fixture) transcript(id string) []string {
	f.t.Helper()
	page, err := f.store.LatestMessages(f.ctx, id, 0, 500)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, m := range page.Messages {
		out = append(out, string(m.Role)+": "+m.Text)
	}
	return out
}

func (f *fixture) wantTranscript(id string, want ...string) {
	f.t.Helper()
	if got := f.transcript(id); !slices.Equal(got, want) {
		f.t.Fatalf("transcript:\n got %q\nwant %q", got, want)
	}
}

// both runs a test once with a responder that may be slow (the visitor's
// message is stored first) and once with an instant one (message and reply
// in one write): the rules must not depend on the path.
func both(t *testing.T, test func(t *testing.T, instant bool)) {
	for _, instant := range []bool{false, true} {
		name := "stored first"
		if instant {
			name = "instant"
		}
		t.Run(name, func(t *testing.T) { test(t, instant) })
	}
}
