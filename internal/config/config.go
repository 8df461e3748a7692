// Package config reads Parley's settings from flags and environment
// variables. A flag overrides the variable of the same setting.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"parley/internal/clientip"
	"parley/internal/domain"
	"parley/internal/mail"
)

// Config is everything `parley serve` needs.
type Config struct {
	Addr           string
	DB             string // SQLite path, "sqlite:PATH", or later "postgres://..."
	RateLimit      int    // widget requests per IP per minute; 0 disables
	TrustedProxies []netip.Prefix
	BaseURL        string // public URL for embed snippets; "" uses the request's host
	Demo           bool   // create the demo account on an empty database
	Signup         bool   // anyone may create an account in the dashboard
	RedisURL       string // shares the rate limit and live updates between instances
	LogFormat      string // "text" or "json"
	LogLevel       string // "debug", "info", "warn", "error"
	AITimeout      time.Duration
	LLM            LLM
	// Embed is the embeddings backend for hybrid retrieval; its base URL
	// and key default to the LLM's.
	Embed     Embed
	PprofAddr string // loopback address for Go's profiling endpoints; "" is off
	// FetchAllowPrivate lets URLs tenants supply (agents' LLM endpoints)
	// reach loopback, private and link-local addresses (package outbound).
	FetchAllowPrivate bool
	MaxConns          int    // connections open at once; 0 derives it from the descriptor limit
	MaxConnsPerIP     int    // connections open at once per client IP (IPv6: /64); 0 is no cap
	MetricsAddr       string // a listener of its own for /metrics; "" serves it to loopback clients on Addr
	// The hourly limits on new conversations per address and per visitor
	// for agents whose config sets none (package initlimit); 0 is off.
	ConversationsPerIP      int
	ConversationsPerVisitor int
	// MaxMessagesPerConversation caps one conversation's messages; past it
	// chat answers 403 and the widget starts a new conversation.
	MaxMessagesPerConversation int
	Knowledge                  Knowledge
	Jobs                       Jobs
	// SMTP sends the desk's e-mail (issue 19: wait alerts, replies to
	// offline visitors); nil when PARLEY_SMTP_URL is unset (no e-mail).
	SMTP *mail.SMTP
}

// Jobs tunes the background job queue (package jobs, docs/operations.md).
type Jobs struct {
	Workers     int           // jobs this instance runs at once
	RescueAfter time.Duration // a job running this long belonged to a dead instance: run it again
	StopGrace   time.Duration // on shutdown, how long running jobs may finish before they are cancelled
}

// Knowledge bounds what accounts keep and how much memory the agents'
// indexes may take (docs/agent.md, "Limits of the knowledge").
type Knowledge struct {
	MaxItems   int // items per agent
	MaxChars   int // characters per agent, all items together
	MaxAgents  int // agents per account
	CacheBytes int // memory for the knowledge indexes of all agents
	// SourcesMaxChars is the page text an agent's website sources may
	// hold, all together.
	SourcesMaxChars int
}

// LLM is an OpenAI-compatible backend; empty BaseURL means the built-in
// knowledge-base agent answers.
type LLM struct {
	BaseURL string
	APIKey  string
	Model   string
	// AgentEndpoints lets agents name their own LLM base URL and key in
	// their config. Turn it off on instances shared by untrusted owners.
	AgentEndpoints bool
}

// Embed is an OpenAI-compatible embeddings backend. Passages are embedded
// only when Model is set (here or in an agent's config): without it,
// retrieval stays lexical.
type Embed struct {
	// BaseURL defaults to the LLM's.
	BaseURL string
	// APIKey defaults to the LLM's key when the base URL is the LLM's:
	// the LLM's key is never sent to another server.
	APIKey string
	Model  string
}

// Defaults.
const (
	DefaultAddr = ":8080"
	DefaultDB   = "parley-data/parley.db"
)

// setting ties a flag to its environment variable.
type setting struct {
	flag, env, def, usage string
}

var settings = []setting{
	{"addr", "PARLEY_ADDR", DefaultAddr, "address to listen on"},
	{"db", "PARLEY_DB", DefaultDB, "database: a SQLite file path, sqlite:PATH or postgres://…"},
	{"rate-limit", "PARLEY_RATE_LIMIT", "30", "widget API requests per client IP per minute (0 disables)"},
	{"trusted-proxies", "PARLEY_TRUSTED_PROXIES", "", "comma-separated CIDRs whose X-Forwarded-For is believed"},
	{"base-url", "PARLEY_BASE_URL", "", "public base URL used in embed snippets (default: the request's host)"},
	{"demo", "PARLEY_DEMO", "true", "create a demo account, agent and page on an empty database"},
	{"redis-url", "PARLEY_REDIS_URL", "", "Redis URL (redis://host:6379/0) to share the rate limit and live updates between instances"},
	{"signup", "PARLEY_SIGNUP", "false", "let anyone create an account on the dashboard's sign-up page (5 per network per hour)"},
	{"log-format", "PARLEY_LOG_FORMAT", "text", "log format: text or json"},
	{"log-level", "PARLEY_LOG_LEVEL", "info", "log level: debug, info, warn or error"},
	{"ai-timeout", "PARLEY_AI_TIMEOUT", "30s", "how long the AI may take to answer (Go duration)"},
	{"llm-base-url", "PARLEY_LLM_BASE_URL", "", "OpenAI-compatible API base URL (default: the built-in knowledge-base agent)"},
	{"llm-api-key", "PARLEY_LLM_API_KEY", "", "API key for the LLM backend"},
	{"llm-model", "PARLEY_LLM_MODEL", "", "model name for the LLM backend"},
	{"llm-agent-endpoints", "PARLEY_LLM_AGENT_ENDPOINTS", "true", "let agents set their own LLM base URL and key in their config"},
	{"embed-base-url", "PARLEY_EMBED_BASE_URL", "", "OpenAI-compatible embeddings API base URL (default: the LLM's)"},
	{"embed-api-key", "PARLEY_EMBED_API_KEY", "", "API key for the embeddings backend (default: the LLM's, when the base URL is the LLM's)"},
	{"embed-model", "PARLEY_EMBED_MODEL", "", "embeddings model; set, LLM agents retrieve by BM25 and vector similarity together"},
	{"fetch-allow-private", "PARLEY_FETCH_ALLOW_PRIVATE", "false", "let URLs tenants supply (agents' LLM endpoints) reach loopback, private and link-local addresses"},
	{"pprof-addr", "PARLEY_PPROF_ADDR", "", "loopback address (127.0.0.1:6060) to serve Go's profiler on /debug/pprof/ (default: off)"},
	{"max-conns", "PARLEY_MAX_CONNS", "0", "connections open at once (0: the open-files limit less a reserve)"},
	{"max-conns-per-ip", "PARLEY_MAX_CONNS_PER_IP", "256", "connections open at once per client IP, trusted proxies exempt (0: no cap)"},
	{"conversations-per-ip-per-hour", "PARLEY_CONVERSATIONS_PER_IP_PER_HOUR", "30", "new conversations one address may start with an agent per hour, for agents whose config sets no limit (0: off)"},
	{"conversations-per-visitor-per-hour", "PARLEY_CONVERSATIONS_PER_VISITOR_PER_HOUR", "10", "new conversations one visitor id may start with an agent per hour, for agents whose config sets no limit (0: off)"},
	{"metrics-addr", "PARLEY_METRICS_ADDR", "", "address (10.0.0.5:9090) with a listener of its own for /metrics (default: /metrics on --addr, to loopback clients only)"},
	{"max-messages-per-conversation", "PARLEY_MAX_MESSAGES_PER_CONVERSATION", "1000", "messages one conversation may hold; past it chat answers 403 and the widget starts a new conversation"},
	{"knowledge-max-items", "PARLEY_KNOWLEDGE_MAX_ITEMS", strconv.Itoa(domain.DefaultKnowledgeMaxItems), "most knowledge items an agent may have"},
	{"knowledge-max-chars", "PARLEY_KNOWLEDGE_MAX_CHARS", strconv.Itoa(domain.DefaultKnowledgeMaxChars), "most characters an agent's knowledge may hold, all items together"},
	{"max-agents-per-account", "PARLEY_MAX_AGENTS_PER_ACCOUNT", strconv.Itoa(domain.DefaultMaxAgentsPerAccount), "most agents an account may have"},
	{"knowledge-cache-mb", "PARLEY_KNOWLEDGE_CACHE_MB", "256", "memory for the agents' knowledge indexes, in MB (least recently used go first)"},
	{"sources-max-chars", "PARLEY_SOURCES_MAX_CHARS", strconv.Itoa(domain.DefaultSourcesMaxChars), "most characters of page text an agent's website sources may hold, all together"},
	{"jobs-workers", "PARLEY_JOBS_WORKERS", "4", "background jobs (source syncs) this instance runs at once"},
	{"jobs-rescue-after", "PARLEY_JOBS_RESCUE_AFTER", "1h", "a background job still running this long after it started is taken to be a dead instance's and run again (more than the 35m sync timeout)"},
	{"jobs-stop-grace", "PARLEY_JOBS_STOP_GRACE", "10s", "on shutdown, how long running background jobs may finish before they are cancelled and queued again"},
	{"smtp-url", "PARLEY_SMTP_URL", "", "SMTP server for e-mail: smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465 (implicit TLS); unset: no e-mail"},
	{"smtp-from", "PARLEY_SMTP_FROM", "", "the From address of Parley's e-mail (Desk <desk@example.com>); required with PARLEY_SMTP_URL"},
}

// Load parses args (without the command name) over the environment.
// getenv is os.Getenv in production and a map in tests.
func Load(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("parley serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	vals := make(map[string]*string, len(settings))
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		vals[s.flag] = fs.String(s.flag, def, fmt.Sprintf("%s (env %s)", s.usage, s.env))
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	get := func(name string) string { return strings.TrimSpace(*vals[name]) }

	c := Config{
		Addr: get("addr"), DB: get("db"), BaseURL: strings.TrimRight(get("base-url"), "/"), RedisURL: get("redis-url"),
		LogFormat: get("log-format"), LogLevel: get("log-level"), PprofAddr: get("pprof-addr"),
		LLM: LLM{BaseURL: get("llm-base-url"), APIKey: get("llm-api-key"), Model: get("llm-model")},
	}
	c.Embed = defaultEmbed(Embed{BaseURL: get("embed-base-url"), APIKey: get("embed-api-key"), Model: get("embed-model")}, c.LLM)
	var errs []error
	var err error
	if c.RateLimit, err = strconv.Atoi(get("rate-limit")); err != nil || c.RateLimit < 0 {
		errs = append(errs, fmt.Errorf("rate limit %q: want a whole number ≥ 0", get("rate-limit")))
	}
	if c.TrustedProxies, err = clientip.ParsePrefixes(get("trusted-proxies")); err != nil {
		errs = append(errs, fmt.Errorf("trusted proxies: %w", err))
	}
	if c.MaxConns, err = strconv.Atoi(get("max-conns")); err != nil || c.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("max conns %q: want a whole number ≥ 0", get("max-conns")))
	}
	if c.MaxConnsPerIP, err = strconv.Atoi(get("max-conns-per-ip")); err != nil || c.MaxConnsPerIP < 0 {
		errs = append(errs, fmt.Errorf("max conns per IP %q: want a whole number ≥ 0", get("max-conns-per-ip")))
	}
	if c.LLM.AgentEndpoints, err = strconv.ParseBool(get("llm-agent-endpoints")); err != nil {
		errs = append(errs, fmt.Errorf("LLM agent endpoints %q: want true or false", get("llm-agent-endpoints")))
	}
	if c.FetchAllowPrivate, err = strconv.ParseBool(get("fetch-allow-private")); err != nil {
		errs = append(errs, fmt.Errorf("fetch allow private %q: want true or false", get("fetch-allow-private")))
	}
	if c.Signup, err = strconv.ParseBool(get("signup")); err != nil {
		errs = append(errs, fmt.Errorf("signup %q: want true or false", get("signup")))
	}
	if c.Demo, err = strconv.ParseBool(get("demo")); err != nil {
		errs = append(errs, fmt.Errorf("demo %q: want true or false", get("demo")))
	}
	if c.SMTP, err = mail.Parse(get("smtp-url"), get("smtp-from")); err != nil {
		errs = append(errs, err)
	}
	if c.MaxMessagesPerConversation, err = strconv.Atoi(get("max-messages-per-conversation")); err != nil || c.MaxMessagesPerConversation < 1 {
		errs = append(errs, fmt.Errorf("max messages per conversation %q: want a whole number ≥ 1", get("max-messages-per-conversation")))
	}
	for _, n := range []struct {
		flag string
		dst  *int
	}{
		{"knowledge-max-items", &c.Knowledge.MaxItems}, {"knowledge-max-chars", &c.Knowledge.MaxChars},
		{"max-agents-per-account", &c.Knowledge.MaxAgents}, {"knowledge-cache-mb", &c.Knowledge.CacheBytes},
		{"sources-max-chars", &c.Knowledge.SourcesMaxChars},
	} {
		if *n.dst, err = strconv.Atoi(get(n.flag)); err != nil || *n.dst < 1 {
			errs = append(errs, fmt.Errorf("%s %q: want a whole number ≥ 1", n.flag, get(n.flag)))
		}
	}
	c.Knowledge.CacheBytes <<= 20
	if c.AITimeout, err = time.ParseDuration(get("ai-timeout")); err != nil || c.AITimeout <= 0 {
		errs = append(errs, fmt.Errorf("AI timeout %q: want a positive Go duration such as 30s", get("ai-timeout")))
	}
	if c.Jobs.Workers, err = strconv.Atoi(get("jobs-workers")); err != nil || c.Jobs.Workers < 1 || c.Jobs.Workers > 1000 {
		errs = append(errs, fmt.Errorf("jobs workers %q: want a whole number from 1 to 1000", get("jobs-workers")))
	}
	// The rescue delay must outlast a sync's own time limit (35 min), or a
	// sync still working would be started again on another instance.
	if c.Jobs.RescueAfter, err = time.ParseDuration(get("jobs-rescue-after")); err != nil || c.Jobs.RescueAfter <= 35*time.Minute {
		errs = append(errs, fmt.Errorf("jobs rescue after %q: want a Go duration over 35m such as 1h", get("jobs-rescue-after")))
	}
	if c.Jobs.StopGrace, err = time.ParseDuration(get("jobs-stop-grace")); err != nil || c.Jobs.StopGrace <= 0 {
		errs = append(errs, fmt.Errorf("jobs stop grace %q: want a positive Go duration such as 10s", get("jobs-stop-grace")))
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log format %q: want text or json", c.LogFormat))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log level %q: want debug, info, warn or error", c.LogLevel))
	}
	if c.PprofAddr != "" && !loopback(c.PprofAddr) {
		// The profiler shows memory and stacks: never on a public address.
		errs = append(errs, fmt.Errorf("pprof address %q: want a loopback host:port such as 127.0.0.1:6060", c.PprofAddr))
	}
	for _, l := range []struct {
		name string
		to   *int
	}{{"conversations-per-ip-per-hour", &c.ConversationsPerIP}, {"conversations-per-visitor-per-hour", &c.ConversationsPerVisitor}} {
		if *l.to, err = strconv.Atoi(get(l.name)); err != nil || *l.to < 0 || *l.to > 100_000 {
			errs = append(errs, fmt.Errorf("%s %q: want a whole number from 0 (off) to 100000", l.name, get(l.name)))
		}
	}
	if c.MetricsAddr = get("metrics-addr"); c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Errorf("metrics address %q: want host:port such as 127.0.0.1:9090", c.MetricsAddr))
		}
	}
	if c.DB == "" {
		errs = append(errs, errors.New("db must not be empty"))
	}
	return c, errors.Join(errs...)
}

// DBFlag registers only the --db flag (with PARLEY_DB as its default) on
// fs, for the admin commands that act on the database.
func DBFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	def := DefaultDB
	if v := getenv("PARLEY_DB"); v != "" {
		def = v
	}
	return fs.String("db", def, "database: a SQLite file path, sqlite:PATH or postgres://… (env PARLEY_DB)")
}

// loopback reports whether addr is host:port with a loopback IP or localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// defaultEmbed fills the embeddings backend's base URL and key from the
// LLM's: most backends (OpenAI, Ollama, vLLM) serve both at one root.
func defaultEmbed(e Embed, l LLM) Embed {
	if e.BaseURL == "" {
		e.BaseURL = l.BaseURL
	}
	same := strings.EqualFold(strings.TrimRight(e.BaseURL, "/"), strings.TrimRight(l.BaseURL, "/"))
	if e.APIKey == "" && same {
		e.APIKey = l.APIKey
	}
	return e
}
