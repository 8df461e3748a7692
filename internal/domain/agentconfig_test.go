package domain

import (
	"encoding/json"
	"errors"
	"testing"
)

// rich is a config with every member Parley reads, unknown ones, an owner's
// key order inside objects, HTML characters and an escape.
const rich = `{"greeting":"Salut <b>&</b> café","color":"#AbC","position":"left","lang":"ro","launcher_text":"Chat","quick_replies":["Prețuri","Talk to a human"],"handoff":{"message":{"ro":"Vine Ana.","en":"Ana comes."},"enabled":true},"instructions":"Be nice.","llm":{"provider":"ollama","model":"m","api_key":"sk","stream":false},"limits":{"conversations_per_ip_per_hour":5},"custom":{"z":1,"a":[1,2]},"aa":null}`

// Public's bytes are pinned to what agent.PublicConfig (which re-encoded a
// map) returned before the config had a type.
func TestPublicIsPinned(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{rich, `{"aa":null,"color":"#AbC","custom":{"z":1,"a":[1,2]},"greeting":"Salut \u003cb\u003e\u0026\u003c/b\u003e café","handoff":{"message":{"ro":"Vine Ana.","en":"Ana comes."},"enabled":true},"lang":"ro","launcher_text":"Chat","position":"left","quick_replies":["Prețuri","Talk to a human"]}`},
		{`{"zz":1,"greeting":"Hi <there>","aa":"caf\u00e9"}`, `{"zz":1,"greeting":"Hi <there>","aa":"caf\u00e9"}`},
		{`{"color":"#123456","llm":{"api_key":"sk"},"instructions":"be nice"}`, `{"color":"#123456"}`},
		{`{"greeting":"Hi"}`, `{"greeting":"Hi"}`},
		{`{"greeting":5,"handoff":"yes","limits":{"x":1}}`, `{"greeting":5,"handoff":"yes"}`},
		{`[1,2]`, `{}`},
		{``, `{}`},
		{`null`, `{}`},
	} {
		if got := DecodeAgentConfig([]byte(tt.in)).Public(); string(got) != tt.want {
			t.Errorf("Public(%s)\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
	if got := (AgentConfig{Greeting: "Hi", Instructions: "x"}).Public(); string(got) != `{"greeting":"Hi"}` {
		t.Errorf("Public of a config built in code = %s", got)
	}
}

// Owner's bytes are pinned to what the management API's redaction (a map
// re-encoded) returned before.
func TestOwnerHidesTheKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{rich, `{"aa":null,"color":"#AbC","custom":{"z":1,"a":[1,2]},"greeting":"Salut \u003cb\u003e\u0026\u003c/b\u003e café","handoff":{"message":{"ro":"Vine Ana.","en":"Ana comes."},"enabled":true},"instructions":"Be nice.","lang":"ro","launcher_text":"Chat","limits":{"conversations_per_ip_per_hour":5},"llm":{"api_key_set":true,"model":"m","provider":"ollama","stream":false},"position":"left","quick_replies":["Prețuri","Talk to a human"]}`},
		{`{"zz":1,"llm":{"model":"m"}}`, `{"zz":1,"llm":{"model":"m"}}`},
		{`{"llm":{"api_key":42,"t":0.5}}`, `{"llm":{"api_key_set":true,"t":0.5}}`}, // a key of the wrong type is still hidden
	} {
		if got := DecodeAgentConfig([]byte(tt.in)).Owner(); string(got) != tt.want {
			t.Errorf("Owner(%s)\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
}

// A stored config comes back byte for byte, unknown members and old values
// of the wrong type included; a change rewrites only what changed.
func TestJSONRoundTrips(t *testing.T) {
	t.Parallel()
	for _, in := range []string{rich, `{"zz":1,"greeting":"caf\u00e9","quick_replies":[],"handoff":{}}`, `{"greeting":5,"llm":"x","limits":{"x":1}}`, `{}`} {
		if got := DecodeAgentConfig([]byte(in)).JSON(); string(got) != in {
			t.Errorf("JSON(%s) = %s", in, got)
		}
	}
	c := DecodeAgentConfig([]byte(`{"zz":{"b":1,"a":2},"greeting":"Hi","llm":{"model":"m","api_key":"k"},"handoff":{"message":"x","enabled":false}}`))
	c.Greeting = "Salut"
	c.LLM.Model = "m2"
	if got, want := string(c.JSON()), `{"greeting":"Salut","handoff":{"message":"x","enabled":false},"llm":{"api_key":"k","model":"m2"},"zz":{"b":1,"a":2}}`; got != want {
		t.Errorf("changed:\n got  %s\n want %s", got, want)
	}
	c.Greeting, c.Extra = "", nil
	if got, want := string(c.JSON()), `{"handoff":{"message":"x","enabled":false},"llm":{"api_key":"k","model":"m2"}}`; got != want {
		t.Errorf("emptied:\n got  %s\n want %s", got, want)
	}
	old := DecodeAgentConfig([]byte(`{"zz":1,"greeting":5,"color":"#fff"}`))
	old.Greeting = ""
	if got := string(old.JSON()); got != `{"zz":1,"greeting":5,"color":"#fff"}` {
		t.Errorf("an unset field keeps its member: %s", got)
	}
	if got := string(old.Detached().JSON()); got != `{"color":"#fff","zz":1}` {
		t.Errorf("detached: %s", got)
	}
	if got := string((AgentConfig{}).JSON()); got != `{}` {
		t.Errorf("zero config = %s", got)
	}
	b, err := json.Marshal(map[string]any{"config": DecodeAgentConfig([]byte(`{"b":1,"a":2}`))})
	if err != nil || string(b) != `{"config":{"b":1,"a":2}}` {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
}

func TestDecodeIsLenient(t *testing.T) {
	t.Parallel()
	c := DecodeAgentConfig([]byte(`{"greeting":5,"color":"#fff","quick_replies":"no","handoff":{"enabled":"yes","message":"Wait."},"llm":{"model":4,"base_url":"http://h/v1","stream":true},"limits":{"conversations_per_ip_per_hour":"2","conversations_per_visitor_per_hour":3}}`))
	if c.Greeting != "" || c.Color != "#fff" || c.QuickReplies != nil {
		t.Errorf("strings: %+v", c)
	}
	if !c.Handoff.On() || c.Handoff.Message != "Wait." {
		t.Errorf("handoff: %+v", c.Handoff)
	}
	if c.LLM.Model != "" || c.LLM.BaseURL != "http://h/v1" || c.LLM.Stream == nil || !*c.LLM.Stream || c.LLM.APIKey != nil {
		t.Errorf("llm: %+v", c.LLM)
	}
	if c.Limits.PerIP != nil || c.Limits.PerVisitor == nil || *c.Limits.PerVisitor != 3 {
		t.Errorf("limits: %+v", c.Limits)
	}
	h := DecodeAgentConfig([]byte(`{"handoff":{"enabled":false,"message":{"ro":"Vine."}}}`)).Handoff
	if h.On() || h.Messages["ro"] != "Vine." {
		t.Errorf("handoff: %+v", h)
	}
}

func TestParseNamesTheMember(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`[1]`:                          "config must be a JSON object",
		`null`:                         "config must be a JSON object",
		`{"greeting":5}`:               "config.greeting must be a string",
		`{"quick_replies":"a"}`:        "config.quick_replies must be an array of strings",
		`{"handoff":[]}`:               "config.handoff must be an object",
		`{"handoff":{"enabled":"no"}}`: "config.handoff.enabled must be true or false",
		`{"handoff":{"message":3}}`:    `config.handoff.message must be a string or an object of strings such as {"en": "…", "ro": "…"}`,
		`{"llm":{"model":4}}`:          "config.llm.model must be a string",
		`{"llm":{"stream":"y"}}`:       "config.llm.stream must be true or false",
		`{"llm":{"api_key":1}}`:        "config.llm.api_key must be a string",
		`{"limits":{"conversations_per_ip_per_hour":2.5}}`: "config.limits.conversations_per_ip_per_hour must be a whole number from 0 (off) to 100000",
	} {
		_, err := ParseAgentConfig([]byte(in))
		var invalid *InvalidError
		if err == nil || err.Error() != want || !errors.As(err, &invalid) || invalid.Msg != want {
			t.Errorf("ParseAgentConfig(%s) = %v, want %q (a 400)", in, err, want)
		}
	}
	if c, err := ParseAgentConfig([]byte(rich)); err != nil || c.Validate() != nil {
		t.Errorf("rich config: %v, %v", err, c.Validate())
	}
}
