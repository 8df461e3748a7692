package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// The agent config's bytes as the management API and init return them are
// pinned here: the typed config (domain.AgentConfig) must keep them byte
// for byte, key order and escapes included.
func TestConfigBytesArePinned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, stored, api, public string
	}{
		{
			name:   "rich, with private keys and an api key",
			in:     `{"greeting":"Salut <b>&</b> café","color":"#AbC","position":"left","lang":"ro","launcher_text":"Chat","quick_replies":["Prețuri","Talk to a human"],"handoff":{"message":{"ro":"Vine Ana.","en":"Ana comes."},"enabled":true},"instructions":"Be nice.","llm":{"provider":"openai","model":"m","api_key":"sk","stream":false,"temperature":0.2},"limits":{"conversations_per_ip_per_hour":5},"custom":{"z":1,"a":[1,2]},"aa":null}`,
			api:    `{"aa":null,"color":"#AbC","custom":{"z":1,"a":[1,2]},"greeting":"Salut \u003cb\u003e\u0026\u003c/b\u003e café","handoff":{"message":{"ro":"Vine Ana.","en":"Ana comes."},"enabled":true},"instructions":"Be nice.","lang":"ro","launcher_text":"Chat","limits":{"conversations_per_ip_per_hour":5},"llm":{"api_key_set":true,"model":"m","provider":"openai","stream":false,"temperature":0.2},"position":"left","quick_replies":["Prețuri","Talk to a human"]}`,
			public: `{"aa":null,"color":"#AbC","custom":{"z":1,"a":[1,2]},"greeting":"Salut \u003cb\u003e\u0026\u003c/b\u003e café","handoff":{"message":{"ro":"Vine Ana.","en":"Ana comes."},"enabled":true},"lang":"ro","launcher_text":"Chat","position":"left","quick_replies":["Prețuri","Talk to a human"]}`,
		},
		{
			name:   "rich, without llm",
			in:     `{"zz":1, "greeting":"Hi <there>","aa":"caf\u00e9","instructions":"x","handoff":{"message":"Wait.","enabled":false}}`,
			api:    `{"zz":1,"greeting":"Hi \u003cthere\u003e","aa":"caf\u00e9","instructions":"x","handoff":{"message":"Wait.","enabled":false}}`,
			public: `{"aa":"caf\u00e9","greeting":"Hi \u003cthere\u003e","handoff":{"message":"Wait.","enabled":false},"zz":1}`,
		},
		{
			name:   "public only, owner order",
			in:     `{"zz":1,"greeting":"Hi <there>","aa":"caf\u00e9","quick_replies":[]}`,
			api:    `{"zz":1,"greeting":"Hi \u003cthere\u003e","aa":"caf\u00e9","quick_replies":[]}`,
			public: `{"zz":1,"greeting":"Hi \u003cthere\u003e","aa":"caf\u00e9","quick_replies":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{})
			r := e.api("POST", "/api/v1/agents", `{"chatbot_name":"Pin","config":`+tt.in+`}`)
			if r.status != 201 {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			var created struct {
				ID        string          `json:"id"`
				Config    json.RawMessage `json:"config"`
				WidgetKey string          `json:"widget_key"`
			}
			json.Unmarshal(r.raw, &created)
			g := e.api("GET", "/api/v1/agents/"+created.ID, nil)
			var got struct {
				Config json.RawMessage `json:"config"`
			}
			json.Unmarshal(g.raw, &got)
			in := e.do("POST", "/api/widget/init", map[string]any{"key": created.WidgetKey}, nil)
			var initRes struct {
				Config json.RawMessage `json:"config"`
			}
			json.Unmarshal(in.raw, &initRes)
			if string(created.Config) != tt.api || string(got.Config) != tt.api {
				t.Errorf("API config:\n created %s\n get     %s\nwant      %s", created.Config, got.Config, tt.api)
			}
			if string(initRes.Config) != tt.public {
				t.Errorf("init config:\n got  %s\n want %s", initRes.Config, tt.public)
			}
		})
	}
}

// Saving applies domain.AgentConfig's rule: a known member of the wrong
// type or out of bounds is a 400 naming it, and nothing is stored.
func TestConfigRefusedOnSave(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	path := "/api/v1/agents/" + e.agent.ID
	before := e.api("GET", path, nil)
	for cfg, want := range map[string]string{
		`[1]`:            "config must be a JSON object",
		`{"greeting":5}`: "config.greeting must be a string",
		`{"greeting":"` + strings.Repeat("x", 1001) + `"}`: "config.greeting must be at most 1000 characters",
		`{"color":"red"}`:    "config.color must be a hex colour, #rgb or #rrggbb",
		`{"position":"top"}`: `config.position must be "left" or "right"`,
		`{"lang":"de"}`:      "config.lang must be one of en, ro, ru",
		`{"quick_replies":["a","b","c","d","e","f","g"]}`: "config.quick_replies must hold at most 6 replies",
		`{"handoff":{"enabled":"no"}}`:                    "config.handoff.enabled must be true or false",
		`{"llm":{"model":4}}`:                             "config.llm.model must be a string",
		`{"limits":{"per_ip":2}}`:                         `config.limits: unknown key "per_ip" (known: conversations_per_ip_per_hour, conversations_per_visitor_per_hour)`,
	} {
		for _, r := range []response{
			e.api("POST", "/api/v1/agents", `{"chatbot_name":"X","config":`+cfg+`}`),
			e.api("PATCH", path, `{"config":`+cfg+`}`),
		} {
			wantError(t, r, 400, "")
			if r.str("error") != want {
				t.Errorf("%.60s: %q, want %q", cfg, r.str("error"), want)
			}
		}
	}
	if after := e.api("GET", path, nil); string(after.raw) != string(before.raw) {
		t.Fatalf("a refused PATCH changed the agent:\n%s\n%s", before.raw, after.raw)
	}
	if r := e.api("GET", "/api/v1/agents", nil); len(r.body["agents"].([]any)) != 1 {
		t.Fatalf("a refused POST created an agent: %s", r.raw)
	}
}

// A config stored under older, looser rules still loads, and its agent
// still chats: members of the wrong type fall back to their defaults,
// and the API shows the config as stored.
func TestOldInvalidConfigStillChats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	old := `{"greeting":5,"color":"red","lang":"de","quick_replies":"x","handoff":{"enabled":"yes","message":7},"llm":"gpt","limits":{"conversations_per_ip_per_hour":-1,"per_ip":2},"custom":true}`
	ag, key := e.newAgent(e.account.ID, "Old", old)
	in := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil)
	if in.status != 200 {
		t.Fatalf("init: %d %s", in.status, in.raw)
	}
	var body struct {
		Config json.RawMessage `json:"config"`
	}
	json.Unmarshal(in.raw, &body)
	if want := `{"color":"red","custom":true,"greeting":5,"handoff":{"enabled":"yes","message":7},"lang":"de","quick_replies":"x"}`; string(body.Config) != want {
		t.Errorf("init config %s, want %s", body.Config, want)
	}
	conv := in.str("conversation_id")
	for _, text := range []string{"hello", "Talk to a human"} { // handoff on: "enabled" was not false
		r := e.do("POST", "/api/widget/chat", map[string]any{"key": key, "conversation_id": conv, "text": text}, nil)
		if r.status != 200 || r.str("response") == "" {
			t.Fatalf("chat %q: %d %s", text, r.status, r.raw)
		}
	}
	if ids := e.waitingIDs(); len(ids) != 1 || ids[0] != conv {
		t.Errorf("waiting %v, want the conversation: handoff is on", ids)
	}
	g := e.api("GET", "/api/v1/agents/"+ag.ID, nil)
	var got struct {
		Config json.RawMessage `json:"config"`
	}
	json.Unmarshal(g.raw, &got)
	if string(got.Config) != old {
		t.Errorf("API config %s, want it as stored %s", got.Config, old)
	}
	// Renaming it keeps the config as it is; saving the config again must
	// meet today's rule.
	if r := e.api("PATCH", "/api/v1/agents/"+ag.ID, `{"chatbot_name":"Older"}`); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.raw)
	}
	if stored, _ := e.store.Agent(t.Context(), e.account.ID, ag.ID); string(stored.Config.JSON()) != old {
		t.Errorf("stored after rename %s", stored.Config.JSON())
	}
}
