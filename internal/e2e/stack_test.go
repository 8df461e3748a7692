package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/agent/llm"
	"parley/internal/agentadmin"
	"parley/internal/canned"
	"parley/internal/chat"
	"parley/internal/clientip"
	"parley/internal/dashboard"
	"parley/internal/desk"
	"parley/internal/domain"
	"parley/internal/initlimit"
	"parley/internal/insights"
	"parley/internal/jobs"
	"parley/internal/mail"
	"parley/internal/mail/mailtest"
	"parley/internal/manageapi"
	"parley/internal/metrics"
	"parley/internal/notify"
	"parley/internal/offline"
	"parley/internal/outbound"
	"parley/internal/ratelimit"
	"parley/internal/retention"
	"parley/internal/secret"
	"parley/internal/server"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
	"parley/internal/webhooks"
	"parley/internal/widgetapi"
)

// stack is a whole Parley on a fresh SQLite database, served on a loopback
// port, with one account and one agent per language the tests speak.
type stack struct {
	t      testing.TB
	store  store.Store
	srv    *httptest.Server
	token  string            // the account's API token
	keys   map[string]string // widget key by agent: "en", "ru"
	faults *faults
	hub    *notify.Hub // tells when the dashboard's live stream listens
	desk   *desk.Service
	// hooks is the webhooks service of the dashboard's Webhooks page; its
	// flushes are queued nowhere (noFlush), so deliveries stay pending.
	hooks *webhooks.Service
	// builds counts the knowledge indexes built per agent: a test that
	// changes knowledge waits for the rebuild instead of sleeping.
	builds *kbBuilds
}

// kbBuilds counts the knowledge-base agent's index builds per agent.
type kbBuilds struct {
	mu sync.Mutex
	n  map[string]int
}

func (b *kbBuilds) built(agentID string, _ int, _ time.Duration, err error) {
	if err == nil {
		b.mu.Lock()
		b.n[agentID]++
		b.mu.Unlock()
	}
}

// count is how many indexes of the agent were built so far.
func (b *kbBuilds) count(agentID string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n[agentID]
}

// noFlush is a webhooks queue that runs nothing.
type noFlush struct{}

func (noFlush) EnqueueWebhook(context.Context, string) error { return nil }

// agents are the tests' chatbots. The knowledge-base agent answers the
// questions below and offers "Talk to a human" to anything else.
var agents = []struct {
	name, chatbot, config string
	knowledge             []domain.KnowledgeEntry
}{
	{"en", "Northwind Help", `{"color":"#0f766e","greeting":"Hi! Ask me about orders, shipping or opening hours.","launcher_text":"Chat with us"}`, []domain.KnowledgeEntry{
		{Question: "What are your opening hours?", Answer: "We are open from 9 to 17, Monday to Friday."},
		{Question: "How much does shipping cost?", Answer: "Shipping is free on orders over 50 euros; details: https://northwind.example/shipping."},
	}},
	{"ru", "Помощник Northwind", `{"color":"#0f766e","greeting":"Здравствуйте! Спросите о заказах, доставке или часах работы.","launcher_text":"Напишите нам"}`, []domain.KnowledgeEntry{
		{Question: "Какие у вас часы работы?", Answer: "Мы работаем с 9 до 17, с понедельника по пятницу.", Lang: "ru"},
		{Question: "Сколько стоит доставка?", Answer: "Доставка бесплатна для заказов от 50 евро.", Lang: "ru"},
	}},
}

func newStack(t testing.TB) *stack { return newStackWith(t, stackOptions{}) }

// newStackCapped is newStack with a cap on messages per conversation
// (0: the default).
func newStackCapped(t *testing.T, maxMessages int) *stack {
	return newStackWith(t, stackOptions{maxMessages: maxMessages})
}

type stackOptions struct {
	maxMessages int // the cap on messages per conversation; 0: the default
	// sources serves website sources, synced on the job queue (River on
	// the stack's SQLite file) with private addresses allowed, as
	// PARLEY_FETCH_ALLOW_PRIVATE=true does, so the sites tests serve on
	// 127.0.0.1 can be crawled.
	sources bool
	// llmURL, when set, is the instance's OpenAI-compatible backend (a
	// fake the test serves): every agent is answered by it.
	llmURL string
	// smtp, when set, is the SMTP server (mailtest) the offline service
	// mails through, on the job queue (River on the stack's SQLite file);
	// nobody is online and the business hours are not set.
	smtp *mailtest.Server
}

func newStackWith(t testing.TB, o stackOptions) *stack {
	t.Helper()
	maxMessages := o.maxMessages
	ctx := context.Background()
	dbPath := sqlitetest.Path(t)
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: "owner@example.com", Name: "Northwind", PasswordHash: "x", Limits: domain.Limits{MonthlyConversations: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{t: t, store: st, token: secret.APIToken(), keys: map[string]string{}, faults: &faults{}}
	if _, err := st.CreateAPIToken(ctx, acc.ID, "e2e", secret.HashToken(s.token)); err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		key := secret.WidgetKey()
		if _, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: a.chatbot, Config: json.RawMessage(a.config), Knowledge: a.knowledge, Key: key}); err != nil {
			t.Fatal(err)
		}
		s.keys[a.name] = key
	}

	quiet := slog.New(slog.DiscardHandler)
	reg := metrics.NewRegistry()
	m := server.NewMetrics(reg)
	s.builds = &kbBuilds{n: map[string]int{}}
	kb := agent.NewKB(sources.Knowledge{Store: st}, agent.KBOptions{OnBuild: s.builds.built})
	t.Cleanup(kb.Stop)
	hub := notify.NewHub()
	s.hub = hub
	// The agents' limits on new conversations apply only where a test's
	// agent config sets them (the instance defaults are off): a test
	// session starts more conversations from one address than a visitor.
	// Counted on a clock that stays in one hour, so that a test's counts
	// never start over because the hour turned while it ran.
	midHour := time.Now().Truncate(initlimit.Window).Add(initlimit.Window / 2)
	limits := initlimit.New(ratelimit.NewMemoryCounter(initlimit.Window, 0, func() time.Time { return midHour }), initlimit.Settings{}, nil)
	var responder agent.Responder = kb
	if o.llmURL != "" {
		backend := llm.New(llm.Config{BaseURL: o.llmURL, Model: "m", MaxRetries: -1}, llm.Deps{Passages: kb.Passages, Logger: quiet})
		responder = agent.Router{Backends: []agent.Backend{backend}, Default: kb}
	}
	s.desk = desk.New(desk.Options{Store: st, Notifier: hub, Logger: quiet})
	var offlineSvc *offline.Service
	if o.smtp != nil {
		offlineSvc = s.offlineOn(dbPath, o.smtp)
	}
	copts := chat.Options{Store: st, Responder: responder, Notifier: hub, Observer: m, Logger: quiet, InitLimits: limits, MaxMessages: maxMessages, Desk: s.desk}
	if offlineSvc != nil {
		copts.Offline = offlineSvc
	}
	svc := chat.New(copts)
	// The server wants its dashboard; the widget tests do not use it.
	// Agents' LLM endpoints are checked on save as in production (private
	// addresses refused).
	endpoints := llm.New(llm.Config{}, llm.Deps{}).CheckAgentConfig
	admin := agentadmin.New(agentadmin.Options{Store: st, Invalidate: kb.Invalidate, CheckEndpoint: endpoints})
	var sourceSvc *sources.Service
	if o.sources {
		sourceSvc = s.sourcesOn(dbPath, kb.Invalidate)
	}
	cannedSvc := &canned.Service{Store: st, Notifier: hub}
	s.hooks = webhooks.New(webhooks.Options{Store: st, Queue: noFlush{}, Logger: quiet})
	insightsSvc := insights.New(st, admin, nil)
	dash, err := dashboard.New(dashboard.Options{Store: st, Chat: svc, Notifier: hub, AgentAdmin: admin, Logger: quiet, Sources: sourceSvc,
		Retention: &retention.Service{Store: st}, Webhooks: s.hooks, Canned: cannedSvc, Desk: s.desk, Offline: offlineSvc, Insights: insightsSvc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dash.Stop)
	manage := manageapi.New(st, svc, admin).WithCanned(cannedSvc).WithDesk(s.desk).WithInsights(insightsSvc)
	if offlineSvc != nil {
		manage = manage.WithOffline(offlineSvc)
	}
	if sourceSvc != nil {
		manage = manage.WithSources(sourceSvc)
	}
	h := server.New(server.Deps{
		Dashboard: dash, Logger: quiet, Store: st, Widget: widgetapi.New(svc), Manage: manage,
		ClientIP: clientip.New(nil), Registry: reg, Metrics: m,
		DemoKey: func(context.Context) string { return s.keys["en"] }, // /demo shows the English agent
	})
	// No rate limiter: a test session makes more requests than a visitor.
	s.srv = httptest.NewServer(s.faults.wrap(h))
	// Long polls hold connections; close them before the chat service stops.
	t.Cleanup(func() { s.srv.CloseClientConnections(); s.srv.Close(); svc.Stop() })
	return s
}

// sourcesOn is the sources service of a stack on the SQLite file at
// path, its syncs run by a real job queue that polls often (a test waits
// for each sync), stopped when the test ends.
func (s *stack) sourcesOn(path string, invalidate func(string)) *sources.Service {
	s.t.Helper()
	ctx := context.Background()
	var svc *sources.Service
	q, err := jobs.Open(ctx, jobs.Options{DB: path, Logger: slog.New(slog.DiscardHandler), PollInterval: 50 * time.Millisecond,
		SyncSource: func(ctx context.Context, id string) error { return svc.RunSync(ctx, id) }})
	if err != nil {
		s.t.Fatal(err)
	}
	svc = sources.New(sources.Options{Store: s.store, Queue: q, Guard: outbound.New(outbound.Options{AllowPrivate: true}),
		Invalidate: invalidate, Logger: slog.New(slog.DiscardHandler)})
	if err := q.Start(ctx); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { q.Stop(context.Background()) })
	return svc
}

// offlineOn is the offline service of a stack mailing through srv: its
// jobs run on a real queue that polls often, nobody is ever online, and a
// visitor counts as gone a millisecond after their last poll (the rule's
// timing is tested in internal/offline with a clock; here the mail must
// go as soon as the operator replies).
func (s *stack) offlineOn(path string, srv *mailtest.Server) *offline.Service {
	s.t.Helper()
	ctx := context.Background()
	var svc *offline.Service
	q, err := jobs.Open(ctx, jobs.Options{DB: path, Logger: slog.New(slog.DiscardHandler), PollInterval: 50 * time.Millisecond,
		SendWaitAlert: func(ctx context.Context, c, u string) error { return svc.SendWaitAlert(ctx, c, u) },
		SendReplyMail: func(ctx context.Context, c string) error { return svc.SendReply(ctx, c) }})
	if err != nil {
		s.t.Fatal(err)
	}
	sender, err := mail.Parse(srv.URL(mailtest.Password), "Northwind <help@northwind.example>")
	if err != nil {
		s.t.Fatal(err)
	}
	svc = offline.New(offline.Options{Store: s.store, Mail: sender.WithTLSConfig(srv.ClientTLS), Queue: q, Logger: slog.New(slog.DiscardHandler),
		OperatorsOnline: func(context.Context, string) (int, error) { return 0, nil },
		ReplyDelay:      time.Millisecond, AwayAfter: time.Millisecond})
	if err := q.Start(ctx); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { q.Stop(context.Background()) })
	return svc
}

// operatorSays posts an operator reply through the management API, which
// also takes the conversation over.
func (s *stack) operatorSays(conversationID, name, text string) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text, "operator_name": name})
	s.manage("POST", "/api/v1/conversations/"+conversationID+"/messages", body, http.StatusCreated)
}

func (s *stack) manage(method, path string, body []byte, want int) []byte {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.srv.URL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		s.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return b
}

// messages returns the stored conversation as "role: text" lines.
func (s *stack) messages(conversationID string) []string {
	s.t.Helper()
	var c struct {
		Messages []struct{ Role, Text string }
	}
	if err := json.Unmarshal(s.manage("GET", "/api/v1/conversations/"+conversationID, nil, http.StatusOK), &c); err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, m := range c.Messages {
		out = append(out, fmt.Sprintf("%s: %s", m.Role, m.Text))
	}
	return out
}
