package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"parley/internal/agent/llm"
	"parley/internal/outbound"
	"parley/web/i18n"
)

// The settings form refuses an LLM endpoint on a private address with a
// 400 that says where it leads and why, in the page's language; what was
// typed stays in the form and nothing is saved.
func TestAgentSettingsRefusePrivateEndpoint(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	e.d.AgentAdmin = e.admin(llm.New(llm.Config{}, llm.Deps{}).CheckAgentConfig) // the instance's defaults
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	form := func(provider, baseURL string) url.Values {
		return url.Values{
			"name": {"Helper"}, "greeting": {"Typed greeting"}, "color": {"#112233"}, "position": {"right"},
			"provider": {provider}, "base_url": {baseURL}, "model": {"m"},
		}
	}
	post := func(f url.Values, lang string) agResp {
		r := httptest.NewRequest("POST", "http://example.com/agents/"+a.ID, strings.NewReader(f.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Accept-Language", lang)
		return e.send(e.session, r)
	}
	tests := []struct {
		provider, baseURL, lang string
		want                    []string
	}{
		{"", "http://127.0.0.1:9100/v1", "en", []string{
			`role="alert">The LLM endpoint leads to 127.0.0.1, a loopback address. This server does not call private addresses; its administrator can allow them with PARLEY_FETCH_ALLOW_PRIVATE.</p>`,
			`value="http://127.0.0.1:9100/v1"`,
		}},
		{"", "http://169.254.169.254/latest", "ro", []string{`Endpointul LLM duce la 169.254.169.254, o adresă link-local.`}},
		{"", "http://[fd00::5]:11434/v1", "ru", []string{`Адрес LLM ведёт на fd00::5 — частный адрес.`}},
		{"", "http://localhost:11434/v1", "en", []string{`The LLM endpoint leads to localhost (127.0.0.1), a loopback address.`}},
		{"ollama", "", "en", []string{`The LLM endpoint leads to localhost (127.0.0.1), a loopback address.`, `value="ollama"`}},
	}
	for _, tt := range tests {
		p := post(form(tt.provider, tt.baseURL), tt.lang)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s%s: %d, want 400", tt.provider, tt.baseURL, p.status)
			continue
		}
		agMustContain(t, tt.provider+tt.baseURL, strings.Replace(p.body, "localhost (::1)", "localhost (127.0.0.1)", 1),
			append(tt.want, ">Typed greeting</textarea>")...)
	}
	stored, err := e.st.Agent(context.Background(), a.AccountID, a.ID)
	if err != nil || strings.Contains(string(stored.Config.JSON()), "llm") || strings.Contains(string(stored.Config.JSON()), "Typed greeting") {
		t.Fatalf("a refused form saved: %s, %v", stored.Config.JSON(), err)
	}

	// A public endpoint is saved.
	if p := post(form("", "https://93.184.216.34/v1"), "en"); p.status != http.StatusSeeOther {
		t.Fatalf("public endpoint: %d %s", p.status, p.body)
	}
	// With private addresses allowed, the loopback one is too.
	e.d.AgentAdmin = e.admin(llm.New(llm.Config{}, llm.Deps{Outbound: outbound.New(outbound.Options{AllowPrivate: true})}).CheckAgentConfig)
	if p := post(form("", "http://127.0.0.1:9100/v1"), "en"); p.status != http.StatusSeeOther {
		t.Fatalf("AllowPrivate: %d", p.status)
	}
}

// Every kind of address the guard refuses has its words in every language.
func TestRefusedClassesTranslated(t *testing.T) {
	t.Parallel()
	for _, c := range outbound.Classes {
		key := "outbound." + c.Key()
		if !i18n.Has(key) {
			t.Errorf("no message %q", key)
		}
	}
}
