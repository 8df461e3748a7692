package server

import (
	"testing"
	"time"
)

const refusedOrigin = `{"error":"this site is not allowed to use this widget"}`

// An agent that lists origins: browsers on other sites get the exact 403
// from every widget route; listed sites and servers (no Origin) are served.
func TestAllowedOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if r := e.api("PATCH", "/api/v1/agents/"+e.agent.ID, `{"config":{"greeting":"Hi","allowed_origins":["https://shop.example","https://*.shop.example"]}}`); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	init := func(origin string) response {
		t.Helper()
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		return e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, h)
	}
	ok := init("https://www.shop.example")
	if ok.status != 200 {
		t.Fatalf("allowed origin: %d %s", ok.status, ok.raw)
	}
	if _, leaked := ok.body["config"].(map[string]any)["allowed_origins"]; leaked {
		t.Fatalf("init showed the origins to visitors: %s", ok.raw)
	}
	if r := init(""); r.status != 200 {
		t.Fatalf("no Origin: %d %s", r.status, r.raw)
	}
	conv := ok.str("conversation_id")

	evil := map[string]string{"Origin": "https://evil.example"}
	for name, r := range map[string]response{
		"init":      init("https://evil.example"),
		"chat":      e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}, evil),
		"poll":      e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, evil),
		"long poll": e.do("GET", "/api/widget/poll?wait=5&key="+e.key+"&conversation_id="+conv, nil, evil),
		"stream": e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"},
			map[string]string{"Origin": "https://evil.example", "Accept": "text/event-stream"}),
	} {
		if r.status != 403 || string(r.raw) != refusedOrigin+"\n" && string(r.raw) != refusedOrigin {
			t.Errorf("%s from a refused origin: %d %q", name, r.status, r.raw)
		}
		// The refusal is readable by the page (CORS stays open), so the
		// widget can tell it from a network failure and hide itself.
		if r.header.Get("Access-Control-Allow-Origin") == "" {
			t.Errorf("%s: the 403 has no CORS header", name)
		}
	}
	shop := map[string]string{"Origin": "https://shop.example"}
	if r := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv, nil, shop); r.status != 200 {
		t.Errorf("poll from an allowed origin: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "hi"}, shop); r.status != 200 {
		t.Errorf("chat from an allowed origin: %d %s", r.status, r.raw)
	}
}

func TestRequireOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if r := e.api("PATCH", "/api/v1/agents/"+e.agent.ID, `{"config":{"allowed_origins":["https://shop.example"],"require_origin":true}}`); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil)
	if r.status != 403 || r.str("error") != "this site is not allowed to use this widget" {
		t.Fatalf("no Origin with require_origin: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, map[string]string{"Origin": "https://shop.example"}); r.status != 200 {
		t.Fatalf("allowed origin: %d %s", r.status, r.raw)
	}
	// The owner sees and edits the settings through the management API.
	g := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil)
	cfg, _ := g.body["config"].(map[string]any)
	if cfg["require_origin"] != true || cfg["allowed_origins"] == nil {
		t.Fatalf("owner's view: %s", g.raw)
	}
	wantError(t, e.api("PATCH", "/api/v1/agents/"+e.agent.ID, `{"config":{"allowed_origins":["https://shop.example/path"]}}`), 400, "")
}

// Without a list, any origin is served, as the spec says.
func TestOriginsOpenByDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, map[string]string{"Origin": "https://anyone.example"}); r.status != 200 {
		t.Fatalf("default: %d %s", r.status, r.raw)
	}
}

// Widget inits and chats from a site, allowed or refused, make it appear
// in the agent's origins seen: the first at once, the later ones counted
// and written by Flush.
func TestOriginsSeen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if r := e.api("PATCH", "/api/v1/agents/"+e.agent.ID, `{"config":{"allowed_origins":["https://shop.example"]}}`); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	from := func(origin string) map[string]string { return map[string]string{"Origin": origin} }
	ok := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, from("https://shop.example"))
	if ok.status != 200 {
		t.Fatalf("init: %d %s", ok.status, ok.raw)
	}
	if r := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, from("https://evil.example")); r.status != 403 {
		t.Fatalf("refused init: %d", r.status)
	}
	e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, from("null"))
	e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil)
	seen := func() map[string]int64 {
		t.Helper()
		rows, err := e.store.RecentOrigins(t.Context(), e.agent.AccountID, e.agent.ID, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, r := range rows {
			m[r.Origin] = r.Count
		}
		return m
	}
	if m := seen(); len(m) != 2 || m["https://shop.example"] != 1 || m["https://evil.example"] != 1 {
		t.Fatalf("after the inits: %v", m)
	}
	chat := map[string]any{"key": e.key, "conversation_id": ok.str("conversation_id"), "text": "hi"}
	if r := e.do("POST", "/api/widget/chat", chat, from("https://shop.example")); r.status != 200 {
		t.Fatalf("chat: %d %s", r.status, r.raw)
	}
	if m := seen(); m["https://shop.example"] != 1 {
		t.Fatalf("a chat within the hour was written: %v", m)
	}
	if err := e.origins.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if m := seen(); m["https://shop.example"] != 2 || m["https://evil.example"] != 1 {
		t.Fatalf("after Flush: %v", m)
	}

	// The management API lists them with the current rule's verdict.
	r := e.api("GET", "/api/v1/agents/"+e.agent.ID+"/origins", nil)
	list, _ := r.body["origins"].([]any)
	if r.status != 200 || len(list) != 2 {
		t.Fatalf("GET origins: %d %s", r.status, r.raw)
	}
	got := map[string]bool{}
	for _, it := range list {
		o := it.(map[string]any)
		if _, err := time.Parse(time.RFC3339, o["last_seen_at"].(string)); err != nil || o["count"] == nil {
			t.Errorf("origin %v", o)
		}
		got[o["origin"].(string)] = o["allowed"].(bool)
	}
	if !got["https://shop.example"] || got["https://evil.example"] {
		t.Errorf("allowed: %v", got)
	}
	if r := e.api("GET", "/api/v1/agents/ag_nope/origins", nil); r.status != 404 {
		t.Errorf("unknown agent: %d", r.status)
	}
}
