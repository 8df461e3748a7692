package embed

import (
	"context"
	"errors"
	"testing"

	"parley/internal/domain"
	"parley/internal/embed/embedtest"
	"parley/internal/outbound"
)

func agentWith(t *testing.T, embed string) domain.Agent {
	t.Helper()
	return domain.Agent{ID: "ag1", Config: domain.DecodeAgentConfig([]byte(`{"embed":` + embed + `}`))}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	def := Config{BaseURL: "https://api.example.com/v1", APIKey: "sk-inst", Model: "m"}
	for _, tc := range []struct {
		name, embed string
		def         Config
		want        Backend
	}{
		{"instance", `{}`, def, Backend{"https://api.example.com/v1", "sk-inst", "m", false}},
		{"model only", `{"model":"m2"}`, def, Backend{"https://api.example.com/v1", "sk-inst", "m2", false}},
		{"the instance's root named again", `{"base_url":"https://API.example.com/v1/"}`, def, Backend{"https://api.example.com/v1", "sk-inst", "m", false}},
		{"own root: no instance key", `{"base_url":"https://e.example/v1"}`, def, Backend{"https://e.example/v1", "", "m", true}},
		{"own root and key", `{"base_url":"https://e.example/v1","api_key":"k"}`, def, Backend{"https://e.example/v1", "k", "m", true}},
		{"agent endpoints off", `{"base_url":"https://e.example/v1","api_key":"k","model":"x"}`, Config{BaseURL: "http://i/v1", Model: "m", NoAgentEndpoints: true}, Backend{"http://i/v1", "", "x", false}},
		{"nothing configured", `{}`, Config{}, Backend{}},
	} {
		got := resolve(tc.def, agentWith(t, tc.embed).Config.Embed)
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if tc.name == "nothing configured" && got.Enabled() {
			t.Errorf("enabled without a backend")
		}
	}
}

// An owner's endpoint on a private address is refused when the config is
// saved and on every call; with PARLEY_FETCH_ALLOW_PRIVATE it is used.
func TestOwnerEndpointGoesThroughTheGuard(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(t, 8)
	a := agentWith(t, `{"base_url":"`+fake.BaseURL()+`","model":"e"}`)

	strict := New(Config{}, nil)
	err := strict.CheckAgentConfig(context.Background(), a.Config)
	var ee *EndpointError
	if !errors.As(err, &ee) || ee.Field != "config.embed.base_url" || !outbound.IsRefusal(err) {
		t.Fatalf("CheckAgentConfig = %v, want a refusal of config.embed.base_url", err)
	}
	if _, err := strict.Embed(context.Background(), strict.For(a), []string{"x"}); !outbound.IsRefusal(err) {
		t.Fatalf("Embed = %v, want a refusal", err)
	}
	if fake.Requests() != 0 {
		t.Fatal("the private server was called")
	}

	open := New(Config{}, outbound.New(outbound.Options{AllowPrivate: true}))
	if err := open.CheckAgentConfig(context.Background(), a.Config); err != nil {
		t.Fatal(err)
	}
	vecs, err := open.Embed(context.Background(), open.For(a), []string{"refund", "money back"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 8 {
		t.Fatalf("Embed = %v, %v", vecs, err)
	}
	// The instance's own endpoint is trusted, loopback or not.
	inst := New(Config{BaseURL: fake.BaseURL(), Model: "e"}, nil)
	if err := inst.CheckAgentConfig(context.Background(), domain.AgentConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Embed(context.Background(), inst.For(domain.Agent{}), []string{"x"}); err != nil {
		t.Fatal(err)
	}
}
