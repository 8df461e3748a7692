package agentadmin

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// A config's own rules come first, the caller's secrets are carried over
// from the stored config, and the endpoint check sees the result.
func TestConfigRules(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		refusal := errors.New("config.llm.base_url: 127.0.0.1 is a loopback address")
		var checked []string
		f := newFixture(t, st, Options{CheckEndpoint: func(_ context.Context, c domain.AgentConfig) error {
			checked = append(checked, string(c.JSON()))
			if c.LLM.BaseURL == "http://127.0.0.1" {
				return refusal
			}
			return nil
		}})
		ctx := t.Context()
		ag := f.agent("Helper")
		update := func(config string, keep KeepSecrets) error {
			_, err := f.svc.UpdateAgent(ctx, f.account, ag.ID, AgentChange{Config: json.RawMessage(config), KeepSecrets: keep})
			return err
		}

		for config, msg := range map[string]string{
			`[]`: "config must be a JSON object", `null`: "config must be a JSON object", ``: "config must be a JSON object",
			`{"a":`:                  "config must be a JSON object",
			`{"limits":3}`:           `config.limits must be an object such as {"conversations_per_ip_per_hour": 30, "conversations_per_visitor_per_hour": 10}`,
			`{"limits":{"other":1}}`: `config.limits: unknown key "other" (known: conversations_per_ip_per_hour, conversations_per_visitor_per_hour)`,
		} {
			err := update(config, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Endpoint {
				t.Errorf("config %q: %v, want a *ConfigError of the config's rules", config, err)
			}
			wantInvalid(t, "config "+config, err, msg)
		}
		if len(checked) != 0 {
			t.Errorf("configs breaking the rules reached the endpoint check: %v", checked)
		}

		err := update(`{"llm":{"base_url":"http://127.0.0.1"}}`, nil)
		var ce *ConfigError
		if !errors.As(err, &ce) || !ce.Endpoint || !errors.Is(err, refusal) {
			t.Fatalf("refused endpoint: %v, want a *ConfigError of the endpoint check wrapping its error", err)
		}
		wantInvalid(t, "refused endpoint", err, refusal.Error())

		// Stored compact; KeepSecrets gets the stored config, and the check
		// sees what it returns.
		if err := update(" {\"greeting\" : \"Hi\",\n \"llm\": {\"api_key\": \"sk-1\"}} ", nil); err != nil {
			t.Fatal(err)
		}
		var prevSeen string
		keep := func(next *domain.AgentConfig, prev domain.AgentConfig) json.RawMessage {
			prevSeen = string(prev.JSON())
			*next = domain.DecodeAgentConfig([]byte(`{"greeting":"Hello","kept":true}`))
			return next.JSON()
		}
		if err := update(`{"greeting": "Hello"}`, keep); err != nil {
			t.Fatal(err)
		}
		got, _ := f.svc.Agent(ctx, f.account, ag.ID)
		if prevSeen != `{"greeting":"Hi","llm":{"api_key":"sk-1"}}` || string(got.Config.JSON()) != `{"greeting":"Hello","kept":true}` {
			t.Errorf("KeepSecrets saw %s; stored %s", prevSeen, got.Config.JSON())
		}
		if last := checked[len(checked)-1]; last != `{"greeting":"Hello","kept":true}` {
			t.Errorf("the endpoint check saw %s, not what KeepSecrets returned", last)
		}
		// On creation there is no stored config.
		prevSeen = "unset"
		if _, err := f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "New", Config: json.RawMessage(`{}`), KeepSecrets: keep}); err != nil || prevSeen != "{}" {
			t.Errorf("CreateAgent: KeepSecrets saw %q, %v; want no stored config", prevSeen, err)
		}
		// Creation applies the same rules.
		_, err = f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "New", Config: json.RawMessage(`{"llm":{"base_url":"http://127.0.0.1"}}`)})
		if !errors.Is(err, refusal) {
			t.Errorf("CreateAgent with a refused endpoint: %v", err)
		}
		_, err = f.svc.CreateAgent(ctx, f.account, NewAgent{Name: "New", Config: json.RawMessage(`7`)})
		wantInvalid(t, "CreateAgent with a config that is not an object", err, "config must be a JSON object")
	})
}
