package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/agent/llm"
	"parley/internal/agentadmin"
	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/chat"
	"parley/internal/clientip"
	"parley/internal/dashboard"
	"parley/internal/desk"
	"parley/internal/domain"
	"parley/internal/initlimit"
	"parley/internal/insights"
	"parley/internal/manageapi"
	"parley/internal/metrics"
	"parley/internal/notify"
	"parley/internal/offline"
	"parley/internal/origins"
	"parley/internal/outbound"
	"parley/internal/park"
	"parley/internal/ratelimit"
	"parley/internal/retention"
	"parley/internal/secret"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
	"parley/internal/webhooks"
	"parley/internal/widgetapi"
)

// env is a whole Parley stack on a fresh SQLite database, driven through
// its http.Handler, with one account, one agent and its widget key.
type env struct {
	t       testing.TB
	store   store.Store
	handler http.Handler
	hub     notify.Notifier
	chat    *chat.Service
	desk    *desk.Service
	origins *origins.Recorder
	reg     *metrics.Registry
	builds  chan string // agent ids of the knowledge indexes built, for tests that wait for a rebuild

	account domain.Account
	token   string // the account's API token
	agent   domain.Agent
	key     string
}

type envOptions struct {
	rateLimit int              // 0: no limit
	trusted   string           // trusted proxy CIDRs
	responder agent.Responder  // nil: the knowledge-base agent
	limits    *domain.Limits   // nil: generous limits
	aiTimeout time.Duration    // 0: the default
	clock     func() time.Time // nil: time.Now
	llm       *llm.Config      // set: agents with an LLM are answered by it
	// fetchAllowPrivate is PARLEY_FETCH_ALLOW_PRIVATE: agents' endpoints
	// may be the test servers on loopback.
	fetchAllowPrivate bool
	// initLimits turns on the agents' hourly limits on new conversations
	// with Parley's defaults, counted in memory on the clock.
	initLimits bool
	maxMsgs    int // the cap on messages per conversation; 0: the default
	// emitter is the chat service's webhook emitter, made over the
	// environment's store; nil: none (BenchmarkChatHandlerWebhooks).
	emitter func(st store.Store) chat.Emitter
	bounds  domain.Bounds // knowledge per agent, agents per account; zero: none
	// Parking (parking.go): the lot, how many inits make a crowd, and a
	// wrapper around the store the chat service uses (to hold its writes).
	lot          *park.Lot
	crowdedInits int
	chatStore    func(store.Store) store.Store
	// Several instances (instances_test.go): the notifier (nil: an
	// in-process Hub), the store (nil: a fresh SQLite database) and peer,
	// another instance whose account, agent and key this one serves
	// (nil: make them; with no store, peer's store is used).
	notifier notify.Notifier
	store    store.Store
	peer     *env
}

var testKnowledge = []domain.KnowledgeEntry{
	{Question: "What are your opening hours?", Answer: "We are open from 9 to 17."},
	{Question: "How much does shipping cost?", Answer: "Shipping is free."},
}

func newEnv(t *testing.T, o envOptions) *env { return newEnvTB(t, o) }

// newEnvTB is newEnv for benchmarks too.
func newEnvTB(t testing.TB, o envOptions) *env {
	t.Helper()
	st := o.store
	switch {
	case st != nil:
	case o.peer != nil:
		st = o.peer.store
	default:
		var err error
		if st, err = sqlite.Open(context.Background(), sqlitetest.Path(t)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
	}

	e := &env{t: t, store: st, reg: metrics.NewRegistry()}
	if p := o.peer; p != nil {
		e.account, e.token, e.agent, e.key = p.account, p.token, p.agent, p.key
	} else {
		limits := domain.Limits{MonthlyConversations: 1000}
		if o.limits != nil {
			limits = *o.limits
		}
		e.account, e.token = e.newAccount("owner@example.com", limits)
		e.agent, e.key = e.newAgent(e.account.ID, "Helper", `{"color":"#123456","greeting":"Hi","llm":{"api_key":"sk-secret"}}`)
	}

	m := NewMetrics(e.reg)
	hub := o.notifier
	if hub == nil {
		hub = notify.NewHub()
	}
	e.hub = hub
	e.builds = make(chan string, 1000)
	kb := agent.NewKB(sources.Knowledge{Store: st}, agent.KBOptions{OnBuild: func(id string, _ int, _ time.Duration, _ error) {
		select {
		case e.builds <- id:
		default: // a test that does not watch builds
		}
	}})
	t.Cleanup(kb.Stop)
	var responder agent.Responder = kb
	guard := outbound.New(outbound.Options{AllowPrivate: o.fetchAllowPrivate})
	// As in production, the LLM backend checks agents' endpoints when they
	// are saved, whether or not the instance has an LLM of its own.
	backend := llm.New(llm.Config{}, llm.Deps{Outbound: guard})
	if o.llm != nil {
		backend = llm.New(*o.llm, llm.Deps{Passages: kb.Passages, History: func(ctx context.Context, id string, n int) ([]domain.Message, error) {
			p, err := st.LatestMessages(ctx, id, 0, n)
			return p.Messages, err
		}, Logger: slog.New(slog.DiscardHandler), Outbound: guard})
		responder = agent.Router{Backends: []agent.Backend{backend}, Default: kb}
	}
	if o.responder != nil {
		responder = o.responder
	}
	var initLimits *initlimit.Limiter
	if o.initLimits {
		initLimits = initlimit.New(ratelimit.NewMemoryCounter(initlimit.Window, 0, o.clock), initlimit.Defaults, e.reg)
	}
	var chatStore store.Store = st
	if o.chatStore != nil {
		chatStore = o.chatStore(st)
	}
	var emitter chat.Emitter
	if o.emitter != nil {
		emitter = o.emitter(st)
	}
	// The origins recorder as in production (cmd/parley/serve.go).
	e.origins = origins.NewRecorder(origins.RecorderOptions{Store: st, Now: o.clock, Logger: slog.New(slog.DiscardHandler)})
	auditLog := audit.New(audit.Options{Store: st, Now: o.clock, Logger: slog.New(slog.DiscardHandler)})
	// The offline rules as in production, without e-mail (internal/offline).
	offlineSvc := offline.New(offline.Options{Store: st, Now: o.clock, Logger: slog.New(slog.DiscardHandler)})
	e.desk = desk.New(desk.Options{Store: st, Notifier: hub, Audit: auditLog, Now: o.clock, Logger: slog.New(slog.DiscardHandler)})
	e.chat = chat.New(chat.Options{Desk: e.desk, Audit: auditLog, Store: chatStore, Responder: responder, Notifier: hub, AITimeout: o.aiTimeout, Observer: m, Now: o.clock, Logger: slog.New(slog.DiscardHandler),
		InitLimits: initLimits, MaxMessages: o.maxMsgs, Origins: e.origins, Emitter: emitter, Offline: offlineSvc})
	t.Cleanup(e.chat.Stop)
	var limiter ratelimit.Limiter
	if o.rateLimit > 0 {
		limiter = ratelimit.NewMemory(o.rateLimit, time.Minute)
	}
	m.Gauges(e.reg, e.chat.Waiting, limiter)
	trusted, err := clientip.ParsePrefixes(o.trusted)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	admin := agentadmin.New(agentadmin.Options{Audit: auditLog, Store: st, Bounds: o.bounds, Invalidate: kb.Invalidate, CheckEndpoint: backend.CheckAgentConfig})
	sourceSvc := sources.New(sources.Options{Audit: auditLog, Store: st, Guard: guard, Invalidate: kb.Invalidate, Logger: quiet})
	cannedSvc := &canned.Service{Store: st, Audit: auditLog, Notifier: hub}
	insightsSvc := insights.New(st, admin, nil)
	dash, err := dashboard.New(dashboard.Options{Audit: auditLog, Store: st, Chat: e.chat, Notifier: hub, AgentAdmin: admin, Signup: true, Logger: quiet, Sources: sourceSvc,
		Origins: origins.NewService(st, o.clock),
		// The webhooks pages as in production; flushes are not run here.
		Webhooks: webhooks.New(webhooks.Options{Store: st, Queue: noQueue{}, Guard: guard, Audit: auditLog, Logger: quiet}),
		Canned:   cannedSvc, Desk: e.desk, Insights: insightsSvc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dash.Stop)
	e.handler = New(Deps{
		Dashboard: dash, Logger: quiet, Store: st, Widget: widgetapi.New(e.chat).ResolveClients(clientip.New(trusted)), Manage: manageapi.New(st, e.chat, admin).WithSources(sourceSvc).WithRetention(&retention.Service{Store: st}).WithOrigins(origins.NewService(st, o.clock)).WithCanned(cannedSvc).WithDesk(e.desk).
				WithAudit(auditLog, func(r *http.Request) string { return clientip.New(trusted).ClientIP(r).String() }).WithOffline(offlineSvc).WithInsights(insightsSvc),
		Limiter: limiter, ClientIP: clientip.New(trusted), Registry: e.reg, Metrics: m,
		Lot: o.lot, CrowdedInits: o.crowdedInits,
	})
	return e
}

func (e *env) newAccount(email string, l domain.Limits) (domain.Account, string) {
	e.t.Helper()
	ctx := context.Background()
	acc, err := e.store.CreateAccount(ctx, store.NewAccount{Email: email, Name: "Ana", PasswordHash: "x", Limits: l})
	if err != nil {
		e.t.Fatal(err)
	}
	token := secret.APIToken()
	if _, err := e.store.CreateAPIToken(ctx, acc.ID, "test", secret.HashToken(token)); err != nil {
		e.t.Fatal(err)
	}
	return acc, token
}

func (e *env) newAgent(accountID, name, config string) (domain.Agent, string) {
	e.t.Helper()
	key := secret.WidgetKey()
	ag, err := e.store.CreateAgent(context.Background(), store.NewAgent{
		AccountID: accountID, ChatbotName: name, Config: json.RawMessage(config), Knowledge: testKnowledge, Key: key,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return ag, key
}

// response is a finished request: status, headers and the decoded body.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (r response) str(field string) string { s, _ := r.body[field].(string); return s }

// do sends a request from remote address 192.0.2.1 unless from is set.
func (e *env) do(method, path string, body any, hdr map[string]string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	req.RemoteAddr = "192.0.2.1:5555"
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "remote" {
			req.RemoteAddr = v
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	res := response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(res.raw, &res.body); err != nil {
			e.t.Fatalf("%s %s: body is not a JSON object: %q", method, path, res.raw)
		}
	}
	return res
}

// api calls the management API with the account's token.
func (e *env) api(method, path string, body any) response {
	e.t.Helper()
	return e.do(method, path, body, map[string]string{"Authorization": "Bearer " + e.token})
}

// start runs init and returns the conversation id and visitor id.
func (e *env) start() (string, string) {
	e.t.Helper()
	r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil)
	if r.status != 200 {
		e.t.Fatalf("init: %d %s", r.status, r.raw)
	}
	return r.str("conversation_id"), r.str("visitor_id")
}

// messages is a conversation's whole transcript, read page by page.
func (e *env) messages(convID string) []domain.Message {
	e.t.Helper()
	var msgs []domain.Message
	for before := int64(0); ; {
		p, err := e.store.LatestMessages(context.Background(), convID, before, store.MaxMessagePage)
		if err != nil {
			e.t.Fatal(err)
		}
		msgs = append(p.Messages, msgs...)
		if !p.More {
			return msgs
		}
		before = p.Messages[0].Seq
	}
}

// wantError checks a JSON error response's status and that it has only an
// error text (no limit_reached) unless limitReason is set.
func wantError(t *testing.T, r response, status int, limitReason string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.raw)
	}
	if r.str("error") == "" {
		t.Fatalf("error body has no error text: %s", r.raw)
	}
	_, has := r.body["limit_reached"]
	if limitReason == "" && has {
		t.Fatalf("unexpected limit_reached in %s", r.raw)
	}
	if limitReason != "" && (r.body["limit_reached"] != true || r.str("reason") != limitReason) {
		t.Fatalf("want limit_reached true and reason %q, got %s", limitReason, r.raw)
	}
}
