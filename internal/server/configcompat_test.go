package server

import (
	"encoding/json"
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
