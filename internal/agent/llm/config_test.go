package llm

import (
	"encoding/json"
	"testing"

	"parley/internal/domain"
)

func TestAgentConfig(t *testing.T) {
	tests := []struct {
		name             string
		raw              string
		want             Config
		wantInstructions string
	}{
		{"empty", ``, Config{}, ""},
		{"not json", `{oops`, Config{}, ""},
		// Each member on its own: a wrong type unsets only itself.
		{"wrong types", `{"llm": {"model": 4, "base_url": "http://h/v1"}, "instructions": "x"}`, Config{BaseURL: "http://h/v1"}, "x"},
		{"wrong type of llm", `{"llm": "gpt", "instructions": 7}`, Config{}, ""},
		{"no llm", `{"greeting": "Hi", "instructions": " Be nice. "}`, Config{}, "Be nice."},
		{
			"all fields",
			`{"llm": {"provider": " Ollama ", "base_url": "http://gpu:11434/v1", "model": "llama3.2", "api_key": "k", "stream": true}, "instructions": "Be nice."}`,
			Config{Provider: "ollama", BaseURL: "http://gpu:11434/v1", Model: "llama3.2", APIKey: "k", Stream: true, streamSet: true},
			"Be nice.",
		},
		{"stream off is kept", `{"llm": {"stream": false}}`, Config{streamSet: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, instr := agentOverride(domain.DecodeAgentConfig([]byte(tt.raw)))
			if got != tt.want || instr != tt.wantInstructions {
				t.Errorf("agentOverride = %+v, %q; want %+v, %q", got, instr, tt.want, tt.wantInstructions)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	openai := Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-instance", Model: "gpt-4o-mini", Stream: true}
	tests := []struct {
		name string
		def  Config
		over Config
		want Config
	}{
		{
			"no override: defaults filled in",
			openai, Config{},
			Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-instance", Model: "gpt-4o-mini", Stream: true, HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"model only keeps the instance key",
			openai, Config{Model: "gpt-4o"},
			Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-instance", Model: "gpt-4o", Stream: true, HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"same endpoint written differently keeps the key",
			openai, Config{BaseURL: "HTTPS://api.openai.com/v1/"},
			Config{BaseURL: "HTTPS://api.openai.com/v1/", APIKey: "sk-instance", Model: "gpt-4o-mini", Stream: true, HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"another endpoint never gets the instance key",
			openai, Config{BaseURL: "https://evil.example/v1", Model: "x"},
			Config{BaseURL: "https://evil.example/v1", Model: "x", Stream: true, HistoryBudget: 6000, MaxRetries: 2, tenantEndpoint: true},
		},
		{
			"another endpoint with its own key",
			openai, Config{Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1", APIKey: "sk-or", Model: "m", streamSet: true},
			Config{Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1", APIKey: "sk-or", Model: "m", HistoryBudget: 6000, MaxRetries: 2, tenantEndpoint: true},
		},
		{
			"provider names the endpoint when none is configured",
			Config{}, Config{Provider: "ollama", Model: "llama3.2"},
			Config{Provider: "ollama", BaseURL: "http://localhost:11434/v1", Model: "llama3.2", HistoryBudget: 6000, MaxRetries: 2, tenantEndpoint: true},
		},
		{
			"instance provider endpoint keeps the instance key",
			Config{Provider: "openai", APIKey: "sk-instance", Model: "gpt-4o-mini"}, Config{},
			Config{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: "sk-instance", Model: "gpt-4o-mini", HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"provider does not move a configured endpoint",
			Config{BaseURL: "http://gateway:4000/v1", Model: "m"}, Config{Provider: "openai"},
			Config{Provider: "openai", BaseURL: "http://gateway:4000/v1", Model: "m", HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"unknown provider names nothing",
			Config{}, Config{Provider: "vllm", Model: "m"},
			Config{Provider: "vllm", Model: "m", HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"agent endpoints off: the agent keeps only its model",
			Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-instance", Model: "gpt-4o-mini", NoAgentEndpoints: true},
			Config{Provider: "ollama", BaseURL: "http://169.254.169.254/v1", APIKey: "k", Model: "gpt-4o"},
			Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-instance", Model: "gpt-4o", NoAgentEndpoints: true, HistoryBudget: 6000, MaxRetries: 2},
		},
		{
			"instance limits kept, negative retries mean none",
			Config{HistoryBudget: 100, MaxRetries: -3}, Config{},
			Config{HistoryBudget: 100, MaxRetries: 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := merge(tt.def, tt.over); got != tt.want {
				t.Errorf("merge = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	tests := []struct {
		name   string
		def    Config
		config string
		want   bool
	}{
		{"nothing configured", Config{}, `{}`, false},
		{"instance default", Config{BaseURL: "http://h/v1", Model: "m"}, `{}`, true},
		{"instance without model", Config{BaseURL: "http://h/v1"}, `{}`, false},
		{"agent adds the model", Config{BaseURL: "http://h/v1"}, `{"llm": {"model": "m"}}`, true},
		{"agent alone", Config{}, `{"llm": {"base_url": "http://h/v1", "model": "m"}}`, true},
		{"agent names ollama", Config{}, `{"llm": {"provider": "ollama", "model": "llama3.2"}}`, true},
		{"agent without model", Config{}, `{"llm": {"base_url": "http://h/v1"}}`, false},
		{"broken agent config uses the default", Config{BaseURL: "http://h/v1", Model: "m"}, `{oops`, true},
		{"agent endpoints off", Config{NoAgentEndpoints: true}, `{"llm": {"base_url": "http://h/v1", "model": "m"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.def, Deps{})
			if got := r.Enabled(domain.Agent{Config: domain.DecodeAgentConfig([]byte(tt.config))}); got != tt.want {
				t.Errorf("Enabled = %v, want %v", got, tt.want)
			}
		})
	}
}

// An agent's own backend is called instead of the instance default, with
// its model and key. (Its test server is on loopback, which only an
// instance that allows private addresses calls: see outbound_test.go.)
func TestAgentOverrideUsed(t *testing.T) {
	def := newFakeServer(t, completion("from default"))
	own := newFakeServer(t, sse("from ", "agent"))
	r := New(Config{BaseURL: def.baseURL(), APIKey: "sk-instance", Model: "default-model"}, Deps{Outbound: allowPrivate})

	req := testRequest()
	cfg, _ := json.Marshal(map[string]any{"llm": map[string]any{
		"provider": "vllm", "base_url": own.baseURL(), "model": "agent-model", "api_key": "sk-agent", "stream": true,
	}})
	req.Agent.Config = domain.DecodeAgentConfig(cfg)
	got, err := respond(t, r, req)
	if err != nil || got.Text != "from agent" {
		t.Fatalf("Respond = %+v, %v", got, err)
	}
	if n := len(def.requests()); n != 0 {
		t.Errorf("default server saw %d requests", n)
	}
	seen := own.requests()
	if len(seen) != 1 || seen[0].Auth != "Bearer sk-agent" || seen[0].Body.Model != "agent-model" || !seen[0].Body.Stream {
		t.Errorf("agent server saw %+v", seen)
	}

	// Another agent on the same instance still gets the default.
	got, err = respond(t, r, testRequest())
	if err != nil || got.Text != "from default" {
		t.Fatalf("Respond = %+v, %v", got, err)
	}
	if seen := def.requests(); len(seen) != 1 || seen[0].Auth != "Bearer sk-instance" || seen[0].Body.Model != "default-model" {
		t.Errorf("default server saw %+v", seen)
	}
}

func TestRespondNotConfigured(t *testing.T) {
	r := New(Config{}, Deps{})
	if _, err := respond(t, r, testRequest()); err == nil {
		t.Fatal("Respond without a backend succeeded")
	}
}

// Each backend is called with its own URL and key, an endpoint an
// agent's owner chose through the outbound guard's HTTP client and the
// instance's own endpoint through the plain one.
func TestClientPerBackend(t *testing.T) {
	r := New(Config{}, Deps{})
	tests := []struct {
		name    string
		cfg     Config
		guarded bool
	}{
		{"instance endpoint", Config{BaseURL: "http://a/v1", APIKey: "k1"}, false},
		{"owner's endpoint", Config{BaseURL: "http://b/v1", APIKey: "k2", tenantEndpoint: true}, true},
	}
	for _, tt := range tests {
		c := r.client(tt.cfg)
		if c.BaseURL != tt.cfg.BaseURL || c.APIKey != tt.cfg.APIKey {
			t.Errorf("%s: client for %s with key %q", tt.name, c.BaseURL, c.APIKey)
		}
		if got := c.HTTP == r.guarded; got != tt.guarded || (!got && c.HTTP != r.http) {
			t.Errorf("%s: through the guard = %v, want %v", tt.name, got, tt.guarded)
		}
	}
}
