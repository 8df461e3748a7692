package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/outbound"
)

// allowPrivate is the guard of an instance with PARLEY_FETCH_ALLOW_PRIVATE:
// tests of other things whose agent endpoints are test servers on loopback
// use it.
var allowPrivate = outbound.New(outbound.Options{AllowPrivate: true})

func agentConfig(t *testing.T, llm map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]any{"llm": llm})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func agentConfigOf(t *testing.T, llm map[string]any) domain.AgentConfig {
	return domain.DecodeAgentConfig(agentConfig(t, llm))
}

// An endpoint an agent's owner chose that leads to a private address is
// never called: not by address, not by a name that resolves there, not
// streamed. The visitor gets a plain backend failure; the log says why.
func TestOwnerEndpointOnPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	fake := newFakeServer(t, completion("internal secret"))
	port := fake.Listener.Addr().String()[strings.LastIndex(fake.Listener.Addr().String(), ":"):]
	for _, base := range []string{fake.baseURL(), "http://localhost" + port + "/v1", "http://[::ffff:127.0.0.1]" + port + "/v1"} {
		for _, stream := range []bool{false, true} {
			log, buf := testLogger()
			r := New(Config{}, Deps{Logger: log}) // the default guard
			req := testRequest()
			req.Agent.Config = agentConfigOf(t, map[string]any{"base_url": base, "model": "m", "stream": stream})
			got, err := respond(t, r, req)
			if !errors.Is(err, ErrBackend) || got.Text != "" {
				t.Errorf("%s stream=%v: Respond = %+v, %v; want ErrBackend", base, stream, got, err)
			}
			if strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "loopback") {
				t.Errorf("the error for the chat service names the address: %v", err)
			}
			logged := buf.String()
			if strings.Count(logged, "LLM endpoint refused") != 1 || !strings.Contains(logged, "class=loopback") || !strings.Contains(logged, "agent=ag1") {
				t.Errorf("%s: log = %s", base, logged)
			}
		}
	}
	if n := len(fake.requests()); n != 0 {
		t.Fatalf("the private server received %d requests", n)
	}

	// The instance allowing private addresses calls the same endpoint.
	r := New(Config{}, Deps{Outbound: allowPrivate})
	req := testRequest()
	req.Agent.Config = agentConfigOf(t, map[string]any{"base_url": fake.baseURL(), "model": "m"})
	if got, err := respond(t, r, req); err != nil || got.Text != "internal secret" {
		t.Fatalf("AllowPrivate: %+v, %v", got, err)
	}
}

// A provider's well-known URL that the owner selected is theirs too.
func TestOwnerProviderEndpointGuarded(t *testing.T) {
	t.Parallel()
	log, buf := testLogger()
	r := New(Config{}, Deps{Logger: log})
	req := testRequest()
	req.Agent.Config = agentConfigOf(t, map[string]any{"provider": "ollama", "model": "llama3.2"})
	if _, err := respond(t, r, req); !errors.Is(err, ErrBackend) || !strings.Contains(buf.String(), "LLM endpoint refused") {
		t.Fatalf("provider ollama: %v; log %s", err, buf.String())
	}
}

// The instance's own endpoint is the administrator's: on loopback it is
// called, also when an agent names it again.
func TestInstanceEndpointTrusted(t *testing.T) {
	t.Parallel()
	def := newFakeServer(t, completion("from the instance"))
	r := New(Config{BaseURL: def.baseURL(), APIKey: "sk-instance", Model: "m"}, Deps{})
	for _, cfg := range []json.RawMessage{
		json.RawMessage(`{}`),
		agentConfig(t, map[string]any{"base_url": "HTTP://" + strings.TrimPrefix(def.baseURL(), "http://") + "/", "model": "m2"}),
		agentConfig(t, map[string]any{"provider": "ollama"}), // a provider does not move a configured endpoint
	} {
		req := testRequest()
		req.Agent.Config = domain.DecodeAgentConfig(cfg)
		if got, err := respond(t, r, req); err != nil || got.Text != "from the instance" {
			t.Errorf("config %s: %+v, %v", cfg, got, err)
		}
	}
	if n := len(def.requests()); n != 3 {
		t.Fatalf("instance server saw %d requests, want 3", n)
	}
}

func TestCheckAgentConfig(t *testing.T) {
	t.Parallel()
	const refusedTail = "; this server does not call private addresses (PARLEY_FETCH_ALLOW_PRIVATE)"
	tests := []struct {
		name   string
		def    Config
		guard  *outbound.Guard
		config string
		want   string // "" accepted
	}{
		{"no llm", Config{}, nil, `{"greeting":"Hi"}`, ""},
		{"broken config overrides nothing", Config{}, nil, `{oops`, ""},
		{"model only", Config{BaseURL: "http://127.0.0.1:11434/v1"}, nil, `{"llm":{"model":"m"}}`, ""},
		{"public address", Config{}, nil, `{"llm":{"base_url":"https://93.184.216.34/v1"}}`, ""},
		{
			"loopback", Config{}, nil, `{"llm":{"base_url":"http://127.0.0.1:9100/v1","model":"m"}}`,
			"config.llm.base_url: 127.0.0.1 is a loopback address" + refusedTail,
		},
		{
			"metadata", Config{}, nil, `{"llm":{"base_url":"http://169.254.169.254/latest"}}`,
			"config.llm.base_url: 169.254.169.254 is a link-local address" + refusedTail,
		},
		{
			"localhost", Config{}, nil, `{"llm":{"base_url":"http://localhost:9100/v1"}}`,
			"config.llm.base_url: localhost resolves to 127.0.0.1, a loopback address" + refusedTail,
		},
		{
			"provider's well-known URL", Config{}, nil, `{"llm":{"provider":"Ollama","model":"llama3.2"}}`,
			"config.llm.provider: this provider's endpoint is http://localhost:11434/v1: localhost resolves to 127.0.0.1, a loopback address" + refusedTail,
		},
		{"provider under an instance endpoint", Config{BaseURL: "http://10.0.0.5:11434/v1"}, nil, `{"llm":{"provider":"ollama"}}`, ""},
		{"the instance's own endpoint named again", Config{BaseURL: "http://10.0.0.5:11434/v1"}, nil, `{"llm":{"base_url":"http://10.0.0.5:11434/v1/"}}`, ""},
		{
			"another private endpoint than the instance's", Config{BaseURL: "http://10.0.0.5:11434/v1"}, nil, `{"llm":{"base_url":"http://10.0.0.6:11434/v1"}}`,
			"config.llm.base_url: 10.0.0.6 is a private address" + refusedTail,
		},
		{"scheme", Config{}, nil, `{"llm":{"base_url":"gopher://example.com/"}}`, `config.llm.base_url: scheme "gopher" is not allowed: use http or https`},
		{"agent endpoints off", Config{NoAgentEndpoints: true}, nil, `{"llm":{"base_url":"http://127.0.0.1:9100/v1"}}`, ""},
		{"private allowed", Config{}, allowPrivate, `{"llm":{"base_url":"http://127.0.0.1:9100/v1"}}`, ""},
		{"private allowed, scheme still checked", Config{}, allowPrivate, `{"llm":{"base_url":"file:///etc/passwd"}}`, `config.llm.base_url: scheme "file" is not allowed: use http or https`},
	}
	for _, tt := range tests {
		r := New(tt.def, Deps{Outbound: tt.guard})
		err := r.CheckAgentConfig(context.Background(), domain.DecodeAgentConfig([]byte(tt.config)))
		var ee *EndpointError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tt.name, err)
		case tt.want != "" && (err == nil || sameLoopback(err.Error()) != tt.want || !errors.As(err, &ee)):
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
	}
}

// sameLoopback reads "localhost resolves to ::1" as "… to 127.0.0.1": which
// of the two a machine's /etc/hosts lists first is not the test's business.
func sameLoopback(msg string) string {
	return strings.Replace(msg, "resolves to ::1,", "resolves to 127.0.0.1,", 1)
}
