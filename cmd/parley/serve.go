package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"parley/internal/agent"
	"parley/internal/agent/llm"
	"parley/internal/agentadmin"
	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/chat"
	"parley/internal/clientip"
	"parley/internal/config"
	"parley/internal/dashboard"
	"parley/internal/demo"
	"parley/internal/desk"
	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/insights"
	"parley/internal/jobs"
	"parley/internal/manageapi"
	"parley/internal/metrics"
	"parley/internal/offline"
	"parley/internal/origins"
	"parley/internal/outbound"
	"parley/internal/park"
	"parley/internal/redact"
	"parley/internal/retention"
	"parley/internal/server"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/surge"
	"parley/internal/webhooks"
	"parley/internal/widgetapi"
)

func serveCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	// Load's own output would follow a mistake with every flag and its
	// value from the environment, secrets included: say the error only.
	cfg, err := config.Load(args, getenv, io.Discard)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "parley:", redact.String(err.Error()))
		fmt.Fprintln(stderr, "parley --help lists the commands and flags")
		return 2
	}
	if err := serve(ctx, cfg, stdout, stderr, nil); err != nil {
		fmt.Fprintln(stderr, "parley:", redact.String(err.Error()))
		return 1
	}
	return 0
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated by config.Load
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// serve runs the service until ctx ends, then shuts down gracefully.
// ready, when set, is told the address once the listener is open (tests
// listen on port 0).
func serve(ctx context.Context, cfg config.Config, stdout, stderr io.Writer, ready func(net.Addr)) error {
	log := newLogger(cfg, stderr)
	slog.SetDefault(log)

	st, err := openStore(ctx, cfg.DB)
	if err != nil {
		return fmt.Errorf("opening the database: %w", redact.Error(err))
	}
	defer st.Close()
	// The background job queue shares the store's database; it is started
	// below, once the services its hooks call exist, and stopped after the
	// HTTP server (or here, on an early return), before the store closes.
	// Its hooks are the sources service's (RunSync, EnqueueDue): built after
	// the queue, which it needs for EnqueueSync, they reach it through
	// closures over the service's variable.
	var sourceSvc *sources.Service
	var hybrid *agent.Hybrid // set below, before the queue starts
	// Per-account retention (issue 18): the queue's daily purge job and
	// the account settings of the API and dashboard share this service.
	retentionSvc := &retention.Service{Store: st, Logger: log}
	var hooks *webhooks.Service
	var offlineSvc *offline.Service // set below, before the queue starts
	queue, err := openJobs(ctx, cfg, log, jobHooks{
		Purge:      retentionSvc.Run,
		SyncSource: func(ctx context.Context, id string) error { return sourceSvc.RunSync(ctx, id) },
		EmbedAgent: func(ctx context.Context, accountID, agentID string) error {
			return hybrid.EmbedAgent(ctx, accountID, agentID)
		},
		EnqueueDue: func(ctx context.Context) error {
			_, err := sourceSvc.EnqueueDue(ctx, time.Now())
			return err
		},
		FlushWebhook: func(ctx context.Context, id string) error {
			return hooks.FlushJob(jobs.Snooze)(ctx, id)
		},
		SweepWebhooks: func(ctx context.Context) error { return hooks.Sweep(ctx) },
		SendWaitAlert: func(ctx context.Context, c, u string) error { return offlineSvc.SendWaitAlert(ctx, c, u) },
		SendReplyMail: func(ctx context.Context, c string) error { return offlineSvc.SendReply(ctx, c) },
	})
	if err != nil {
		return fmt.Errorf("opening the job queue: %w", redact.Error(err))
	}
	queueStopped := false
	defer func() {
		if !queueStopped {
			stopJobs(queue, cfg, log)
		}
	}()

	tcp, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	// Long polls that wait are parked: their connections come back to the
	// server through ln when answered (package park).
	conns := limitConns(tcp, cfg, log)
	ln := park.NewListener(conns)
	lot := park.NewLot(ln)
	if cfg.Demo {
		if err := seedDemo(ctx, st, cfg, ln.Addr(), stdout); err != nil {
			ln.Close()
			return fmt.Errorf("creating the demo account: %w", err)
		}
	}

	if cfg.PprofAddr != "" {
		if err := servePprof(ctx, cfg.PprofAddr, log); err != nil {
			ln.Close()
			return fmt.Errorf("profiler: %w", err)
		}
	}

	reg := metrics.NewRegistry()
	connMetrics(reg, conns)
	m := server.NewMetrics(reg)
	if cfg.MetricsAddr != "" {
		if err := serveMetrics(ctx, cfg.MetricsAddr, reg, log); err != nil {
			ln.Close()
			return fmt.Errorf("metrics: %w", err)
		}
	}
	hub, limiter, closeShared, err := sharedState(ctx, cfg, st, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeShared()
	limits, closeLimits, err := initLimits(ctx, cfg, reg, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeLimits()
	surges := surge.New(st, surge.Options{Logger: log, Registry: reg})
	// The knowledge base reads an agent's knowledge together with its
	// website sources' pages (bounded per agent).
	kb := agent.NewKB(sources.Knowledge{Store: st, MaxChars: cfg.Knowledge.SourcesMaxChars},
		agent.KBOptions{CacheBytes: cfg.Knowledge.CacheBytes, OnBuild: agent.LogBuilds(log)})
	defer kb.Stop() // after the server: no request waits for a build then
	// URLs tenants supply go through the outbound guard; the instance's
	// own (PARLEY_LLM_BASE_URL) does not.
	guard := outbound.New(outbound.Options{AllowPrivate: cfg.FetchAllowPrivate})
	// Signed webhooks: deliveries are flushed on the job queue (the hooks
	// above), through the outbound guard.
	// The accounts' audit log (issue 18): each service records its actions.
	auditLog := audit.New(audit.Options{Store: st, Logger: log})
	hooks = webhooks.New(webhooks.Options{Store: st, Queue: queue, Guard: guard, Logger: log, Audit: auditLog})
	// Embeddings for hybrid retrieval (docs/agent.md); with no model
	// configured, instance-wide or by an agent, nothing is embedded.
	var embedder *embed.Embedder
	embedder, hybrid = newHybrid(cfg, kb, st, guard, reg, log, queue.EnqueueEmbed)
	// A change of an agent's knowledge rebuilds its index and queues the
	// embedding of its new passages.
	invalidate := func(agentID string) { kb.Invalidate(agentID); hybrid.Changed(agentID) }
	// Agents with an LLM configured (instance-wide or in their own config)
	// are answered by it, with the knowledge base as retrieval context;
	// all others by the knowledge-base agent alone.
	llmBackend := llm.New(llm.Config{
		BaseURL: cfg.LLM.BaseURL, APIKey: cfg.LLM.APIKey, Model: cfg.LLM.Model,
		NoAgentEndpoints: !cfg.LLM.AgentEndpoints,
	}, llm.Deps{Passages: hybrid.Passages, History: latestMessages(st), Logger: log, Outbound: guard})
	responder := agent.Router{Backends: []agent.Backend{llmBackend}, Default: kb}
	// The sites widgets are used from, for the owner's hint under the
	// allowed origins: written at most hourly per site, the rest flushed at
	// shutdown (internal/origins).
	seenOrigins := origins.NewRecorder(origins.RecorderOptions{Store: st, Logger: log})
	originSvc := origins.NewService(st, nil)
	retentionSvc.Audit = auditLog
	// The operator desk (issue 19): status, assignment, presence. Chat
	// tells it of visitor messages (reopen) and waits (auto-assign).
	deskSvc := desk.New(desk.Options{Store: st, Notifier: hub, Audit: auditLog, Logger: log})
	// Nobody left waiting (issue 19): business hours, offline answers, the
	// e-mails (when PARLEY_SMTP_URL is set) and the CSAT report. Presence
	// is the desk's: nobody online is one reason to say a visitor is offline.
	offlineOpts := offline.Options{Store: st, Logger: log, DashboardURL: cfg.BaseURL, OperatorsOnline: deskSvc.OperatorsOnline}
	if cfg.SMTP != nil {
		offlineOpts.Mail, offlineOpts.Queue = cfg.SMTP, queue
		log.Info("e-mail on", "smtp", cfg.SMTP.String())
	}
	offlineSvc = offline.New(offlineOpts)
	chatSvc := chat.New(chat.Options{
		Store: st, Responder: responder, Notifier: hub, AITimeout: cfg.AITimeout, Logger: log, Observer: m,
		InitLimits: limits, InitSurges: surges, MaxMessages: cfg.MaxMessagesPerConversation,
		Audit: auditLog, Origins: seenOrigins,
		Emitter: hooks, Offline: offlineSvc, Desk: deskSvc,
	})
	m.Gauges(reg, chatSvc.Waiting, limiter)
	resolver := clientip.New(cfg.TrustedProxies)
	// One rule book for agents, keys and knowledge, for the dashboard and
	// the management API alike.
	agents := agentadmin.New(agentadmin.Options{
		Store: st, Bounds: bounds(cfg), Invalidate: invalidate, CheckEndpoint: checkEndpoints(llmBackend.CheckAgentConfig, embedder.CheckAgentConfig),
		Audit: auditLog,
	})
	// Website sources: syncs run on the job queue, whose worker calls
	// sourceSvc.RunSync and whose periodic job sourceSvc.EnqueueDue (the
	// hooks above; the queue starts only after this is set).
	sourceSvc = sources.New(sources.Options{
		Store: st, Queue: queue, Guard: guard, MaxChars: cfg.Knowledge.SourcesMaxChars, Invalidate: invalidate, Logger: log,
		Audit: auditLog,
	})
	// AI outcomes (issue 20): reports, knowledge gaps and suggested
	// entries, whose answers become knowledge through agents' rules.
	insightsSvc := insights.New(st, agents, nil)
	// Canned replies and private notes (issue 19), for both front doors.
	cannedSvc := &canned.Service{Store: st, Audit: auditLog, Notifier: hub}
	dash, err := dashboard.New(dashboard.Options{
		Store: st, Chat: chatSvc, Notifier: hub, AgentAdmin: agents, Signup: cfg.Signup,
		BaseURL: cfg.BaseURL, Logger: log,
		ClientIP: func(r *http.Request) string { return resolver.ClientIP(r).String() },
		Surges:   surges, Limits: limits, Sources: sourceSvc, Retention: retentionSvc,
		Audit: auditLog, Origins: originSvc, Webhooks: hooks,
		Canned: cannedSvc, Offline: offlineSvc, Desk: deskSvc, Insights: insightsSvc,
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("dashboard: %w", err)
	}
	handler := server.New(server.Deps{
		Dashboard: dash,
		Store:     st,
		Widget:    widgetapi.New(chatSvc).ResolveClients(resolver),
		Manage: manageapi.New(st, chatSvc, agents).WithSources(sourceSvc).WithRetention(retentionSvc).WithOrigins(originSvc).WithWebhooks(hooks).WithCanned(cannedSvc).WithOffline(offlineSvc).WithDesk(deskSvc).WithInsights(insightsSvc).
			WithAudit(auditLog, func(r *http.Request) string { return resolver.ClientIP(r).String() }),
		Limiter:  limiter,
		ClientIP: resolver,
		Registry: reg,
		Metrics:  m,
		Logger:   log,
		DemoKey:  func(ctx context.Context) string { return demo.WidgetKey(ctx, st) },
		Lot:      lot,
		// With a listener of its own, /metrics is not on this one at all.
		MetricsElsewhere: cfg.MetricsAddr != "",
	})

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// Long enough for the longest long poll or the slowest AI answer.
		WriteTimeout: max(chat.MaxPollWait, cfg.AITimeout) + 15*time.Second,
		IdleTimeout:  2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState:    conns.ConnState, // tells the connection limits which are idle
	}
	srv.RegisterOnShutdown(chatSvc.Stop)
	srv.RegisterOnShutdown(dash.Stop)

	if cfg.LLM.BaseURL != "" {
		log.Info("AI: OpenAI-compatible LLM", "base_url", redact.String(cfg.LLM.BaseURL), "model", cfg.LLM.Model)
	} else {
		log.Info("AI: built-in knowledge-base agent (set PARLEY_LLM_BASE_URL for an LLM)")
	}
	if cfg.FetchAllowPrivate && cfg.LLM.AgentEndpoints {
		log.Warn("agents' LLM endpoints may reach private addresses (PARLEY_FETCH_ALLOW_PRIVATE=true): give accounts only to owners you trust")
	}
	log.Info("parley listening", "addr", ln.Addr().String(), "db", redact.String(cfg.DB), "version", versionString())
	if ready != nil {
		ready(ln.Addr())
	}
	if err := queue.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	go sweepEmbeddings(ctx, hybrid)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	// Shutdown does not wait for hijacked connections; the parked long
	// polls were told to end (chatSvc.Stop) and answer now.
	lot.Wait()
	if err := seenOrigins.Flush(shutdownCtx); err != nil {
		log.Warn("recording widget origins at shutdown failed", "err", err)
	}
	stopJobs(queue, cfg, log)
	queueStopped = true
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bounds are the instance's limits on what accounts hold.
func bounds(cfg config.Config) domain.Bounds {
	return domain.Bounds{
		Knowledge: domain.KnowledgeLimits{MaxItems: cfg.Knowledge.MaxItems, MaxChars: cfg.Knowledge.MaxChars},
		MaxAgents: cfg.Knowledge.MaxAgents,
	}
}

// seedDemo creates the demo account on an empty database and prints how to
// try it. Its password and API token are printed only to a terminal, where
// a person reads them once; to a log (systemd, Docker, CI) it says how to
// set a password instead. On later starts it prints the demo page only:
// the password and token exist only as hashes by then.
func seedDemo(ctx context.Context, st interface {
	store.Accounts
	store.APITokens
	store.Agents
	store.Keys
}, cfg config.Config, addr net.Addr, stdout io.Writer) error {
	creds, created, err := demo.Seed(ctx, st)
	if err != nil {
		return err
	}
	base := cfg.BaseURL
	if base == "" {
		base = "http://localhost"
		if tcp, ok := addr.(*net.TCPAddr); ok {
			base = fmt.Sprintf("http://localhost:%d", tcp.Port)
		}
	}
	if created && !onTerminal(stdout) {
		fmt.Fprintf(stdout, `
Parley created a demo account:
  Demo page:   %s/demo
  Widget key:  %s
  Login:       %s
Its password and API token are printed only on a terminal, and this output
is not one (it may be kept in logs). To sign in, set a password on the same
database (--db or PARLEY_DB), then make API tokens on the dashboard's Team page:
  parley account password --email %s --password-stdin

`, base, creds.WidgetKey, creds.Email, creds.Email)
		return nil
	}
	if created {
		fmt.Fprintf(stdout, `
Parley created a demo account (shown once; only hashes are stored):
  Demo page:   %s/demo
  Widget key:  %s
  Login:       %s
  Password:    %s
  API token:   %s   (Authorization: Bearer … on %s/api/v1/…)

`, base, creds.WidgetKey, creds.Email, creds.Password, creds.APIToken, base)
		return nil
	}
	if key := demo.WidgetKey(ctx, st); key != "" {
		fmt.Fprintf(stdout, "Parley demo page: %s/demo (widget key %s)\n", base, key)
	}
	return nil
}

// latestMessages reads a conversation's newest messages for the LLM's
// history (llm.Deps.History).
func latestMessages(st store.Messages) func(ctx context.Context, id string, limit int) ([]domain.Message, error) {
	return func(ctx context.Context, id string, limit int) ([]domain.Message, error) {
		p, err := st.LatestMessages(ctx, id, 0, limit)
		return p.Messages, err
	}
}
