package config

import (
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	c, err := Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Sign-up is off unless opened (issue 14): a stranger cannot make
	// accounts on a default start. The demo stays on for the first start.
	if c.Signup {
		t.Fatal("sign-up is open by default")
	}
	if c.Addr != ":8080" || c.DB != "parley-data/parley.db" || c.RateLimit != 30 || !c.Demo ||
		c.AITimeout != 30*time.Second || c.LogFormat != "text" || len(c.TrustedProxies) != 0 || c.LLM.BaseURL != "" || !c.LLM.AgentEndpoints || c.PprofAddr != "" {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestFlagsOverrideEnv(t *testing.T) {
	e := env(map[string]string{
		"PARLEY_ADDR": ":9000", "PARLEY_RATE_LIMIT": "0", "PARLEY_DEMO": "false",
		"PARLEY_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1", "PARLEY_AI_TIMEOUT": "5s",
		"PARLEY_BASE_URL": "https://chat.example.com/", "PARLEY_LOG_FORMAT": "json", "PARLEY_SIGNUP": "true",
	})
	c, err := Load([]string{"--addr", "127.0.0.1:7000", "--rate-limit=12", "--pprof-addr", "[::1]:6060"}, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:7000" || c.RateLimit != 12 || c.PprofAddr != "[::1]:6060" {
		t.Fatalf("flags did not override env: %+v", c)
	}
	if c.Demo || !c.Signup || c.AITimeout != 5*time.Second || c.BaseURL != "https://chat.example.com" || c.LogFormat != "json" {
		t.Fatalf("env not applied: %+v", c)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0] != want[0] || c.TrustedProxies[1] != want[1] {
		t.Fatalf("trusted proxies = %v, want %v", c.TrustedProxies, want)
	}
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"PARLEY_RATE_LIMIT": "-1"}, nil, "rate limit"},
		{map[string]string{"PARLEY_RATE_LIMIT": "ten"}, nil, "rate limit"},
		{map[string]string{"PARLEY_TRUSTED_PROXIES": "not-a-cidr"}, nil, "trusted proxies"},
		{map[string]string{"PARLEY_DEMO": "maybe"}, nil, "demo"},
		{map[string]string{"PARLEY_AI_TIMEOUT": "30"}, nil, "AI timeout"},
		{map[string]string{"PARLEY_LOG_FORMAT": "xml"}, nil, "log format"},
		{map[string]string{"PARLEY_LLM_AGENT_ENDPOINTS": "sometimes"}, nil, "LLM agent endpoints"},
		{map[string]string{"PARLEY_FETCH_ALLOW_PRIVATE": "yes please"}, nil, "fetch allow private"},
		{map[string]string{"PARLEY_PPROF_ADDR": "0.0.0.0:6060"}, nil, "pprof address"},
		{map[string]string{"PARLEY_PPROF_ADDR": ":6060"}, nil, "pprof address"},
		{nil, []string{"--pprof-addr", "10.0.0.1:6060"}, "pprof address"},
		{nil, []string{"--nope"}, "flag provided but not defined"},
		{nil, []string{"extra"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		_, err := Load(tt.args, env(tt.env), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("env %v args %v: err = %v, want it to mention %q", tt.env, tt.args, err, tt.want)
		}
	}
}

// Tenant URLs may not reach private addresses unless the administrator says
// so, by variable or flag.
func TestFetchAllowPrivate(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want bool
	}{
		{nil, nil, false},
		{map[string]string{"PARLEY_FETCH_ALLOW_PRIVATE": "true"}, nil, true},
		{nil, []string{"--fetch-allow-private=true"}, true},
		{map[string]string{"PARLEY_FETCH_ALLOW_PRIVATE": "true"}, []string{"--fetch-allow-private=false"}, false},
	} {
		c, err := Load(tt.args, env(tt.env), io.Discard)
		if err != nil || c.FetchAllowPrivate != tt.want {
			t.Errorf("env %v args %v: FetchAllowPrivate = %v, %v; want %v", tt.env, tt.args, c.FetchAllowPrivate, err, tt.want)
		}
	}
}

func TestConnectionLimits(t *testing.T) {
	c, err := Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxConns != 0 || c.MaxConnsPerIP != 256 {
		t.Fatalf("defaults: max conns %d, per IP %d; want 0 (from the descriptor limit) and 256", c.MaxConns, c.MaxConnsPerIP)
	}
	c, err = Load([]string{"--max-conns-per-ip", "0"}, env(map[string]string{"PARLEY_MAX_CONNS": "5000", "PARLEY_MAX_CONNS_PER_IP": "9"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxConns != 5000 || c.MaxConnsPerIP != 0 {
		t.Fatalf("max conns %d, per IP %d; want 5000 and 0", c.MaxConns, c.MaxConnsPerIP)
	}
	for _, e := range []map[string]string{{"PARLEY_MAX_CONNS": "-1"}, {"PARLEY_MAX_CONNS_PER_IP": "many"}} {
		if _, err := Load(nil, env(e), io.Discard); err == nil || !strings.Contains(err.Error(), "max conns") {
			t.Errorf("env %v: err = %v", e, err)
		}
	}
}

func TestMaxMessagesPerConversation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want int
	}{
		{nil, nil, 1000},
		{map[string]string{"PARLEY_MAX_MESSAGES_PER_CONVERSATION": "50"}, nil, 50},
		{map[string]string{"PARLEY_MAX_MESSAGES_PER_CONVERSATION": "50"}, []string{"--max-messages-per-conversation", "7"}, 7},
	} {
		c, err := Load(tt.args, env(tt.env), io.Discard)
		if err != nil || c.MaxMessagesPerConversation != tt.want {
			t.Errorf("env %v args %v: %d, %v; want %d", tt.env, tt.args, c.MaxMessagesPerConversation, err, tt.want)
		}
	}
	for _, bad := range []string{"0", "-1", "ten", "1e3"} {
		_, err := Load(nil, env(map[string]string{"PARLEY_MAX_MESSAGES_PER_CONVERSATION": bad}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "max messages per conversation") {
			t.Errorf("%q: err = %v, want it to mention max messages per conversation", bad, err)
		}
	}
}

func TestKnowledgeBounds(t *testing.T) {
	c, err := Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Knowledge{MaxItems: 2000, MaxChars: 1_000_000, MaxAgents: 50, CacheBytes: 256 << 20, SourcesMaxChars: 1_000_000}); c.Knowledge != want {
		t.Fatalf("defaults %+v, want %+v", c.Knowledge, want)
	}
	c, err = Load([]string{"--knowledge-max-chars", "2000000", "--knowledge-cache-mb=64"},
		env(map[string]string{"PARLEY_KNOWLEDGE_MAX_ITEMS": "10", "PARLEY_MAX_AGENTS_PER_ACCOUNT": "3", "PARLEY_KNOWLEDGE_MAX_CHARS": "5", "PARLEY_SOURCES_MAX_CHARS": "7"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Knowledge{MaxItems: 10, MaxChars: 2_000_000, MaxAgents: 3, CacheBytes: 64 << 20, SourcesMaxChars: 7}); c.Knowledge != want {
		t.Fatalf("set %+v, want %+v", c.Knowledge, want)
	}
	for _, v := range []string{"0", "-5", "many"} {
		for _, name := range []string{"PARLEY_KNOWLEDGE_MAX_ITEMS", "PARLEY_KNOWLEDGE_MAX_CHARS", "PARLEY_MAX_AGENTS_PER_ACCOUNT", "PARLEY_KNOWLEDGE_CACHE_MB", "PARLEY_SOURCES_MAX_CHARS"} {
			if _, err := Load(nil, env(map[string]string{name: v}), io.Discard); err == nil || !strings.Contains(err.Error(), "want a whole number ≥ 1") {
				t.Errorf("%s=%s: err = %v", name, v, err)
			}
		}
	}
}

func TestEmbedDefaultsToTheLLM(t *testing.T) {
	llm := map[string]string{"PARLEY_LLM_BASE_URL": "https://api.example.com/v1", "PARLEY_LLM_API_KEY": "sk-llm"}
	tests := []struct {
		name string
		set  map[string]string
		want Embed
	}{
		{"nothing set", nil, Embed{}},
		{"the LLM's root and key", map[string]string{"PARLEY_EMBED_MODEL": "e"}, Embed{"https://api.example.com/v1", "sk-llm", "e"}},
		{"the LLM's root named again", map[string]string{"PARLEY_EMBED_BASE_URL": "https://API.example.com/v1/"}, Embed{"https://API.example.com/v1/", "sk-llm", ""}},
		{"another root gets no LLM key", map[string]string{"PARLEY_EMBED_BASE_URL": "http://ollama:11434/v1"}, Embed{"http://ollama:11434/v1", "", ""}},
		{"its own key", map[string]string{"PARLEY_EMBED_BASE_URL": "http://o/v1", "PARLEY_EMBED_API_KEY": "k", "PARLEY_EMBED_MODEL": "m"}, Embed{"http://o/v1", "k", "m"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]string{}
			if tc.name != "nothing set" {
				for k, v := range llm {
					m[k] = v
				}
			}
			for k, v := range tc.set {
				m[k] = v
			}
			c, err := Load(nil, env(m), io.Discard)
			if err != nil || c.Embed != tc.want {
				t.Fatalf("Embed = %+v, %v; want %+v", c.Embed, err, tc.want)
			}
		})
	}
}
