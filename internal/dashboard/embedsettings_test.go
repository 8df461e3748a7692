package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"parley/internal/agent/llm"
	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/outbound"
)

// The settings form edits the agent's embeddings backend ("embed") as it
// does the LLM's: base URL and model shown again, the API key write-only
// (blank keeps it, the box removes it), each key kept or removed on its
// own, and a breach of the config's rule refused with its own message.
func TestAgentSettingsEmbed(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	stored := func() domain.AgentConfig {
		t.Helper()
		got, err := e.st.Agent(ctx, a.AccountID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Config
	}
	form := url.Values{
		"name": {"Helper"}, "color": {"#112233"}, "position": {"right"},
		"base_url": {"https://llm.example.com/v1"}, "api_key": {"sk-llm"},
		"embed_base_url": {"https://embed.example.com/v1"}, "embed_model": {"nomic-embed-text"}, "embed_api_key": {"sk-embed"},
	}
	if p := e.post("/agents/"+a.ID, form); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	var c struct {
		LLM   map[string]string `json:"llm"`
		Embed map[string]string `json:"embed"`
	}
	if err := json.Unmarshal(stored().JSON(), &c); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"base_url": "https://embed.example.com/v1", "model": "nomic-embed-text", "api_key": "sk-embed"}; !sameMap(c.Embed, want) || c.LLM["api_key"] != "sk-llm" {
		t.Fatalf("stored: %+v", c)
	}

	p := e.get("/agents/" + a.ID)
	agMustContain(t, "page", p.body, `<legend>Embeddings (hybrid retrieval)</legend>`,
		`name="embed_base_url" value="https://embed.example.com/v1"`, `name="embed_model" value="nomic-embed-text"`,
		`<p class="hint" id="embed-key-state">A key is set.`, `name="clear_embed_key"`)
	agMustNotContain(t, "page", p.body, "sk-embed", "sk-llm")

	// Blank keys keep both; removing the embeddings key leaves the LLM's.
	form.Del("api_key")
	form.Del("embed_api_key")
	form.Set("embed_model", "other")
	if p := e.post("/agents/"+a.ID, form); p.status != http.StatusSeeOther {
		t.Fatalf("save without keys: %d", p.status)
	}
	if cfg := stored(); cfg.Embed.Key() != "sk-embed" || cfg.Embed.Model != "other" || cfg.LLM.APIKey == nil || *cfg.LLM.APIKey != "sk-llm" {
		t.Fatalf("blank keys: %s", cfg.JSON())
	}
	form.Set("clear_embed_key", "1")
	if p := e.post("/agents/"+a.ID, form); p.status != http.StatusSeeOther {
		t.Fatalf("remove key: %d", p.status)
	}
	if cfg := stored(); cfg.Embed.APIKey != nil || cfg.LLM.APIKey == nil {
		t.Fatalf("after removing the embeddings key: %s", cfg.JSON())
	}
	p = e.get("/agents/" + a.ID)
	agMustContain(t, "removed", p.body, `<p class="hint" id="embed-key-state">No key is set.`, `name="clear_key"`)
	agMustNotContain(t, "removed", p.body, `name="clear_embed_key"`)

	// Invalid: 400, the embeddings message, what was typed kept, nothing saved.
	before := string(stored().JSON())
	for _, tt := range []struct{ field, value, msg string }{
		{"embed_base_url", "ftp://embed.example.com", "The embeddings base URL must be an http:// or https:// address"},
		{"embed_base_url", "not a url", "The embeddings base URL must be"},
		{"embed_model", strings.Repeat("x", 1001), "base URL, model and API key are at most 1000 characters"},
		{"embed_api_key", strings.Repeat("x", 1001), "base URL, model and API key are at most 1000 characters"},
	} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set(tt.field, tt.value)
		p := e.post("/agents/"+a.ID, bad)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s=%q: %d", tt.field, tt.value, p.status)
			continue
		}
		agMustContain(t, tt.field, p.body, `role="alert">`, tt.msg)
		if tt.field == "embed_base_url" {
			agMustContain(t, tt.field, p.body, `value="`+tt.value+`"`)
		}
	}
	if after := string(stored().JSON()); after != before {
		t.Fatalf("an invalid form changed the config: %s", after)
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// An embeddings endpoint on a private address is refused, through the
// same check the server runs (the LLM's and the embeddings' in turn),
// with a message naming the embeddings endpoint, in the page's language.
func TestAgentSettingsRefusePrivateEmbedEndpoint(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	both := func(g *outbound.Guard) func(context.Context, domain.AgentConfig) error {
		l, em := llm.New(llm.Config{}, llm.Deps{Outbound: g}), embed.New(embed.Config{}, g)
		return func(ctx context.Context, c domain.AgentConfig) error {
			if err := l.CheckAgentConfig(ctx, c); err != nil {
				return err
			}
			return em.CheckAgentConfig(ctx, c)
		}
	}
	e.d.AgentAdmin = e.admin(both(outbound.New(outbound.Options{})))
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	post := func(embedURL, llmURL, lang string) agResp {
		f := url.Values{"name": {"Helper"}, "greeting": {"Typed greeting"}, "color": {"#112233"}, "position": {"right"},
			"base_url": {llmURL}, "embed_base_url": {embedURL}, "embed_model": {"e"}}
		r := httptest.NewRequest("POST", "http://example.com/agents/"+a.ID, strings.NewReader(f.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Accept-Language", lang)
		return e.send(e.session, r)
	}
	for _, tt := range []struct {
		embedURL, llmURL, lang, want string
	}{
		{"http://127.0.0.1:9/v1", "", "en", `role="alert">The embeddings endpoint leads to 127.0.0.1, a loopback address. This server does not call private addresses`},
		{"http://10.0.0.1/v1", "", "ro", `Endpointul de embeddings duce la 10.0.0.1, o adresă privată.`},
		{"http://[fd00::5]/v1", "", "ru", `Адрес эмбеддингов ведёт на fd00::5 — частный адрес.`},
		// Both private: the LLM's is checked first, and named.
		{"http://127.0.0.1:9/v1", "http://10.0.0.1/v1", "en", `The LLM endpoint leads to 10.0.0.1`},
	} {
		p := post(tt.embedURL, tt.llmURL, tt.lang)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", tt.embedURL, p.status)
			continue
		}
		agMustContain(t, tt.embedURL, p.body, tt.want, `value="`+tt.embedURL+`"`, ">Typed greeting</textarea>")
	}
	if got, err := e.st.Agent(context.Background(), a.AccountID, a.ID); err != nil || got.Config.Embed.BaseURL != "" {
		t.Fatalf("a refused form saved: %s, %v", got.Config.JSON(), err)
	}
	if p := post("https://93.184.216.34/v1", "", "en"); p.status != http.StatusSeeOther {
		t.Fatalf("public endpoint: %d", p.status)
	}
	e.d.AgentAdmin = e.admin(both(outbound.New(outbound.Options{AllowPrivate: true})))
	if p := post("http://127.0.0.1:9/v1", "", "en"); p.status != http.StatusSeeOther {
		t.Fatalf("AllowPrivate: %d", p.status)
	}
}
