package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/agentadmin"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/origins"
	"parley/internal/outbound"
	"parley/internal/secret"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/store/sqlite"
)

// agEnv drives the agents pages through a mux wired as internal/server
// wires them (without the server's CSP and CSRF wrapper).
type agEnv struct {
	t           *testing.T
	d           *Dashboard
	st          store.Store
	mux         *http.ServeMux
	owner       domain.User
	session     string // the owner's session token
	invalidated []string
	bounds      domain.Bounds
}

// admin is the agents' rule book as the server wires it: the env's store,
// bounds and invalidation log, and check for LLM endpoints (nil: none).
func (e *agEnv) admin(check func(context.Context, domain.AgentConfig) error) *agentadmin.Service {
	return agentadmin.New(agentadmin.Options{Store: e.st, Bounds: e.bounds, CheckEndpoint: check,
		Invalidate: func(id string) { e.invalidated = append(e.invalidated, id) }})
}

func agentRoutes(mux *http.ServeMux, d *Dashboard) {
	mux.HandleFunc("GET /agents", d.requireOwner(d.Agents))
	mux.HandleFunc("POST /agents", d.requireOwner(d.CreateAgent))
	mux.HandleFunc("GET /agents/{id}", d.requireOwner(d.Agent))
	mux.HandleFunc("POST /agents/{id}", d.requireOwner(d.UpdateAgent))
	mux.HandleFunc("POST /agents/{id}/keys", d.requireOwner(d.RotateKey))
	mux.HandleFunc("POST /agents/{id}/identity-secret", d.requireOwner(d.RotateIdentitySecret))
	mux.HandleFunc("POST /agents/{id}/keys/{key}/active", d.requireOwner(d.SetKeyActive))
	mux.HandleFunc("POST /agents/{id}/knowledge", d.requireOwner(d.AddKnowledge))
	mux.HandleFunc("POST /agents/{id}/knowledge/{item}", d.requireOwner(d.UpdateKnowledge))
	mux.HandleFunc("POST /agents/{id}/knowledge/{item}/delete", d.requireOwner(d.DeleteKnowledge))
	mux.HandleFunc("GET /agents/{id}/sources", d.requireOwner(d.SourcesList))
	mux.HandleFunc("POST /agents/{id}/sources", d.requireOwner(d.AddSource))
	mux.HandleFunc("GET /agents/{id}/sources/{sid}", d.requireOwner(d.Source))
	mux.HandleFunc("POST /agents/{id}/sources/{sid}/sync", d.requireOwner(d.SyncSource))
	mux.HandleFunc("POST /agents/{id}/sources/{sid}/delete", d.requireOwner(d.DeleteSource))
}

func newAgEnv(t *testing.T) *agEnv { t.Helper(); return newBoundedAgEnv(t, domain.Bounds{}) }

// newBoundedAgEnv is newAgEnv on an instance with bounds b.
func newBoundedAgEnv(t *testing.T, b domain.Bounds) *agEnv {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir()+"/p.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hub := notify.NewHub()
	quiet := slog.New(slog.DiscardHandler)
	kb := agent.NewKB(st, agent.KBOptions{})
	t.Cleanup(kb.Stop)
	c := chat.New(chat.Options{Store: st, Responder: kb, Notifier: hub, Logger: quiet})
	e := &agEnv{t: t, st: st, mux: http.NewServeMux(), bounds: b}
	// Sources with the guard as in production (private addresses
	// refused) and no job queue: sources stay as the tests set them.
	e.d, err = New(Options{Store: st, Chat: c, Notifier: hub, Logger: quiet, AgentAdmin: e.admin(nil),
		Sources: sources.New(sources.Options{Store: st, Guard: outbound.New(outbound.Options{}), Logger: quiet}),
		Origins: origins.NewService(st, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.d.Stop)
	agentRoutes(e.mux, e.d)
	e.owner, e.session = e.account("owner@example.com")
	return e
}

// account creates an account and a session of its owner.
func (e *agEnv) account(email string) (domain.User, string) {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.st.CreateAccount(ctx, store.NewAccount{Email: email, Name: "Owner", PasswordHash: "x", Limits: domain.DefaultLimits}); err != nil {
		e.t.Fatal(err)
	}
	u, err := e.st.UserByEmail(ctx, email)
	if err != nil {
		e.t.Fatal(err)
	}
	return u, e.sessionOf(u)
}

func (e *agEnv) sessionOf(u domain.User) string {
	e.t.Helper()
	token := secret.ID("", 32)
	if err := e.st.CreateSession(context.Background(), u.ID, secret.HashToken(token), time.Now().Add(time.Hour)); err != nil {
		e.t.Fatal(err)
	}
	return token
}

type agResp struct {
	status   int
	body     string
	location string
}

func (e *agEnv) send(session string, r *http.Request) agResp {
	e.t.Helper()
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: session})
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	return agResp{status: w.Code, body: w.Body.String(), location: w.Header().Get("Location")}
}

func (e *agEnv) get(path string) agResp {
	e.t.Helper()
	return e.send(e.session, httptest.NewRequest("GET", "http://example.com"+path, nil))
}

func (e *agEnv) postAs(session, path string, form url.Values) agResp {
	e.t.Helper()
	r := httptest.NewRequest("POST", "http://example.com"+path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.send(session, r)
}

func (e *agEnv) post(path string, form url.Values) agResp {
	e.t.Helper()
	return e.postAs(e.session, path, form)
}

// upload posts a multipart form with the fields and, when fileName is not
// "", a file.
func (e *agEnv) upload(path string, fields map[string]string, fileName string, file []byte) agResp {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if fileName != "" {
		fw, _ := mw.CreateFormFile("file", fileName)
		_, _ = fw.Write(file)
	}
	_ = mw.Close()
	r := httptest.NewRequest("POST", "http://example.com"+path, &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return e.send(e.session, r)
}

// follow gets a redirect's target (without its fragment, as a browser).
func (e *agEnv) follow(res agResp) agResp {
	e.t.Helper()
	if res.status != http.StatusSeeOther {
		e.t.Fatalf("want a 303, got %d: %s", res.status, res.body)
	}
	target, _, _ := strings.Cut(res.location, "#")
	return e.get(target)
}

func (e *agEnv) newAgent(accountID, name string) (domain.Agent, string) {
	e.t.Helper()
	key := secret.WidgetKey()
	a, err := e.st.CreateAgent(context.Background(), store.NewAgent{AccountID: accountID, ChatbotName: name, Key: key})
	if err != nil {
		e.t.Fatal(err)
	}
	return a, key
}

func (e *agEnv) keys(a domain.Agent) []domain.WidgetKey {
	e.t.Helper()
	keys, err := e.st.Keys(context.Background(), a.AccountID, a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return keys
}

func (e *agEnv) knowledge(a domain.Agent) []domain.KnowledgeEntry {
	e.t.Helper()
	kb, err := e.st.Knowledge(context.Background(), a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return kb
}

func agMustContain(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

func agMustNotContain(t *testing.T, what, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			t.Errorf("%s contains %q", what, b)
		}
	}
}

func TestAgentsListAndCreate(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	p := e.get("/agents")
	if p.status != http.StatusOK {
		t.Fatalf("list: %d", p.status)
	}
	agMustContain(t, "empty list", p.body, "No agents yet.", `<label for="agent-name">Chatbot name</label>`, `action="/agents"`)

	p = e.post("/agents", url.Values{"name": {"   "}})
	if p.status != http.StatusBadRequest {
		t.Fatalf("blank name: %d", p.status)
	}
	agMustContain(t, "blank name", p.body, `role="alert">The chatbot name must be 1 to 100 characters.`)
	long := strings.Repeat("ä", 101)
	p = e.post("/agents", url.Values{"name": {long}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, `value="`+long+`"`) {
		t.Fatalf("long name: %d, typed name kept: %v", p.status, strings.Contains(p.body, long))
	}

	p = e.post("/agents", url.Values{"name": {"  Shop helper  "}})
	if p.status != http.StatusSeeOther || !regexp.MustCompile(`^/agents/ag_\w+\?flash=agent\.created#embed$`).MatchString(p.location) {
		t.Fatalf("create: %d %q", p.status, p.location)
	}
	agents, _ := e.st.Agents(context.Background(), e.owner.AccountID)
	if len(agents) != 1 || agents[0].ChatbotName != "Shop helper" {
		t.Fatalf("agents after create: %+v", agents)
	}
	keys := e.keys(agents[0])
	if len(keys) != 1 || !keys[0].Active {
		t.Fatalf("keys after create: %+v", keys)
	}
	key := keys[0].Key
	// The owner lands on the agent with the embed code and its key.
	p = e.follow(p)
	if p.status != http.StatusOK {
		t.Fatalf("agent page: %d", p.status)
	}
	agMustContain(t, "new agent's page", p.body,
		"Agent created.",
		`<section id="embed"`, `>Embed Code</h2>`,
		`<textarea id="embed-code" class="code" rows="2" readonly`,
		`&lt;script async src=&#34;http://example.com/widget.js&#34; data-key=&#34;`+key+`&#34;&gt;&lt;/script&gt;</textarea>`,
		`<button type="button" data-copy="embed-code">Copy</button>`,
		`<script async src="/widget.js" data-key="`+key+`" data-position="right"></script>`,
		"It chats for real")

	p = e.get("/agents")
	agMustContain(t, "list", p.body, `<a href="/agents/`+agents[0].ID+`"><bdi>Shop helper</bdi></a>`, key)
}

func TestAgentEmbedBaseURL(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, key := e.newAgent(e.owner.AccountID, "Helper")
	want := func(what, base string) {
		t.Helper()
		r := httptest.NewRequest("GET", "http://example.com/agents/"+a.ID, nil)
		if what == "proxy" {
			r.Header.Set("X-Forwarded-Proto", "https")
		}
		p := e.send(e.session, r)
		agMustContain(t, what, p.body, `src=&#34;`+base+`/widget.js&#34; data-key=&#34;`+key)
	}
	want("request", "http://example.com")
	want("proxy", "https://example.com")
	e.d.BaseURL = "https://chat.example.org/"
	want("configured", "https://chat.example.org")
}

func TestAgentSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	ctx := context.Background()
	// A key the dashboard does not edit survives saving; a value of the
	// wrong type from an older config goes.
	if _, err := e.st.UpdateAgent(ctx, a.AccountID, a.ID, store.AgentPatch{Config: json.RawMessage(`{"custom":{"x":1},"llm":{"stream":true},"launcher_text":7,"limits":{"conversations_per_ip_per_hour":"x","per_ip":1}}`)}); err != nil {
		t.Fatal(err)
	}
	form := url.Values{
		"name": {"Shop helper"}, "greeting": {"Hello there!"}, "color": {"#112233"}, "color_text": {""},
		"position": {"left"}, "lang": {"ro"}, "launcher_text": {"Chat with us"},
		"quick_replies": {"Prices\n\n  Opening hours  \n"}, "handoff_message": {"A colleague will join."},
		"handoff_message_ro": {"Un coleg vine imediat."},
		"instructions":       {"Be brief."}, "provider": {"openai"}, "base_url": {"https://api.example.com/v1"},
		"model": {"gpt-4o-mini"}, "api_key": {"sk-secret-123"},
	}
	p := e.post("/agents/"+a.ID, form)
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=agent.saved#settings" {
		t.Fatalf("save: %d %q %s", p.status, p.location, p.body)
	}
	stored := func() map[string]any {
		t.Helper()
		got, err := e.st.Agent(ctx, a.AccountID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ChatbotName != "Shop helper" {
			t.Fatalf("name %q", got.ChatbotName)
		}
		var c map[string]any
		if err := json.Unmarshal(got.Config.JSON(), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := stored()
	wantJSON := `{"color":"#112233","custom":{"x":1},"greeting":"Hello there!",` +
		`"handoff":{"enabled":false,"message":{"en":"A colleague will join.","ro":"Un coleg vine imediat.","ru":"A colleague will join."}},` +
		`"instructions":"Be brief.","lang":"ro","launcher_text":"Chat with us",` +
		`"llm":{"api_key":"sk-secret-123","base_url":"https://api.example.com/v1","model":"gpt-4o-mini","provider":"openai","stream":true},` +
		`"position":"left","quick_replies":["Prices","Opening hours"]}`
	if b, _ := json.Marshal(c); string(b) != wantJSON {
		t.Fatalf("config\n got %s\nwant %s", b, wantJSON)
	}

	// The form shows it all again, except the API key, which is only "set".
	p = e.get("/agents/" + a.ID)
	agMustContain(t, "settings", p.body, `value="Shop helper"`, ">Hello there!</textarea>", `value="#112233"`,
		`<option value="left" selected>`, `<option value="ro" selected>`, `value="Chat with us"`,
		">Prices\nOpening hours</textarea>", `value="Un coleg vine imediat."`, ">Be brief.</textarea>",
		`value="https://api.example.com/v1"`, `value="gpt-4o-mini"`, "A key is set.",
		`<legend>Handoff to a human</legend>`, `<legend>AI</legend>`,
		`data-position="left"`)
	agMustNotContain(t, "settings", p.body, "sk-secret-123", `name="handoff" value="on" checked`)

	// Saving without typing a key keeps it; the box removes it.
	form.Del("api_key")
	form.Set("handoff", "on")
	form.Set("color", "#2563eb")
	if p := e.post("/agents/"+a.ID, form); p.status != http.StatusSeeOther {
		t.Fatalf("save again: %d", p.status)
	}
	c = stored()
	llm := c["llm"].(map[string]any)
	if llm["api_key"] != "sk-secret-123" || c["handoff"].(map[string]any)["enabled"] != true || c["color"] != "#2563eb" {
		t.Fatalf("after a save without a key: %v", c)
	}
	form.Set("clear_key", "1")
	form.Set("provider", "")
	form.Set("base_url", "")
	form.Set("model", "")
	if p := e.post("/agents/"+a.ID, form); p.status != http.StatusSeeOther {
		t.Fatalf("clear key: %d", p.status)
	}
	c = stored()
	if llm := c["llm"].(map[string]any); len(llm) != 1 || llm["stream"] != true {
		t.Fatalf("llm after clearing: %v", c["llm"])
	}
	if p := e.get("/agents/" + a.ID); !strings.Contains(p.body, "No key is set.") {
		t.Fatal("page does not say the key is gone")
	}
	// The typed hex code wins over the picker.
	form.Set("color_text", "#ABC")
	if p := e.post("/agents/"+a.ID, form); p.status != http.StatusSeeOther || stored()["color"] != "#ABC" {
		t.Fatalf("typed colour: %d %v", p.status, stored()["color"])
	}

	// Invalid input: 400, the message, what was typed kept, nothing saved.
	before := stored()
	for _, tt := range []struct{ field, value, msg string }{
		{"color_text", "red", "The colour must be a hex code"},
		{"color_text", "#abcd", "The colour must be a hex code"},
		{"name", " ", "The chatbot name must be 1 to 100 characters."},
		{"launcher_text", strings.Repeat("x", 41), "the launcher text at most 40"},
		{"quick_replies", "1\n2\n3\n4\n5\n6\n7", "at most 6 quick replies"},
		{"base_url", "ftp://example.com", "The base URL must be"},
		{"position", "middle", "The form was not filled in correctly."},
		// The rest of domain.AgentConfig.Validate's rule, which the
		// management API applies too.
		{"lang", "de", "The form was not filled in correctly."},
		{"instructions", strings.Repeat("x", 20001), "The instructions are at most 20000 characters."},
		{"handoff_message_ru", strings.Repeat("x", 1001), "the handoff messages are at most 1000"},
		{"model", strings.Repeat("x", 1001), "model and API key are at most 1000 characters"},
	} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set("greeting", "Typed greeting")
		bad.Set(tt.field, tt.value)
		p := e.post("/agents/"+a.ID, bad)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s=%q: %d", tt.field, tt.value, p.status)
			continue
		}
		agMustContain(t, tt.field, p.body, `role="alert">`, tt.msg, ">Typed greeting</textarea>")
	}
	after, _ := json.Marshal(stored())
	if b, _ := json.Marshal(before); string(b) != string(after) {
		t.Fatalf("an invalid form changed the config: %s", after)
	}
}

func TestAgentKeyRotationAndActivation(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, oldKey := e.newAgent(e.owner.AccountID, "Helper")
	p := e.post("/agents/"+a.ID+"/keys", nil)
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=embed.rotated#embed" {
		t.Fatalf("rotate: %d %q", p.status, p.location)
	}
	keys := e.keys(a)
	if len(keys) != 2 || keys[0].Key != oldKey || keys[0].Active || !keys[1].Active {
		t.Fatalf("keys after rotation: %+v", keys)
	}
	newKey := keys[1].Key
	p = e.follow(p)
	agMustContain(t, "page after rotation", p.body, "A new key was created", `data-key=&#34;`+newKey,
		`<tr data-key="`+oldKey+`" data-active="false">`, `<tr data-key="`+newKey+`" data-active="true">`)
	agMustNotContain(t, "page after rotation", p.body, `data-key=&#34;`+oldKey)

	// Deactivating the only active key leaves no embed code and no preview.
	p = e.post("/agents/"+a.ID+"/keys/"+newKey+"/active", url.Values{"active": {"false"}})
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=embed.deactivated#embed" {
		t.Fatalf("deactivate: %d %q", p.status, p.location)
	}
	p = e.follow(p)
	agMustContain(t, "no active key", p.body, "Key deactivated", "This agent has no active key", "The preview needs an active key.")
	agMustNotContain(t, "no active key", p.body, `src="/widget.js"`, `id="embed-code"`)
	if p := e.get("/agents"); !strings.Contains(p.body, "No active key") {
		t.Error("list does not say the agent has no active key")
	}

	p = e.post("/agents/"+a.ID+"/keys/"+oldKey+"/active", url.Values{"active": {"true"}})
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=embed.activated#embed" {
		t.Fatalf("activate: %d %q", p.status, p.location)
	}
	if keys := e.keys(a); !keys[0].Active || keys[1].Active {
		t.Fatalf("keys after activation: %+v", keys)
	}
	if p := e.post("/agents/"+a.ID+"/keys/"+oldKey+"/active", url.Values{"active": {"maybe"}}); p.status != http.StatusBadRequest {
		t.Fatalf("active=maybe: %d", p.status)
	}
	// A key of another agent of the same account is not this agent's.
	b, bKey := e.newAgent(e.owner.AccountID, "Other")
	if p := e.post("/agents/"+a.ID+"/keys/"+bKey+"/active", url.Values{"active": {"false"}}); p.status != http.StatusNotFound {
		t.Fatalf("another agent's key: %d", p.status)
	}
	if keys := e.keys(b); !keys[0].Active {
		t.Fatal("another agent's key was deactivated")
	}
}

func TestAgentKnowledge(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	base := "/agents/" + a.ID + "/knowledge"

	// A question and answer.
	p := e.upload(base, map[string]string{"kind": "qa", "question": " Do you ship? ", "answer": "Yes.", "lang": "en"}, "", nil)
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=kb.added#knowledge" {
		t.Fatalf("add Q&A: %d %q %s", p.status, p.location, p.body)
	}
	kb := e.knowledge(a)
	if len(kb) != 1 || kb[0].Question != "Do you ship?" || kb[0].Answer != "Yes." || kb[0].Lang != "en" || kb[0].Kind != domain.KindQA {
		t.Fatalf("after adding: %+v", kb)
	}
	qa := kb[0]
	p = e.follow(p)
	agMustContain(t, "knowledge", p.body, "Added to the knowledge.", `<li id="kb-`+qa.ID+`">`, ">Do you ship?</h3>", ">Yes.</textarea>")
	// URL-encoded forms work too.
	if p := e.post(base, url.Values{"question": {"Where?"}, "answer": {"Here."}}); p.status != http.StatusSeeOther {
		t.Fatalf("add Q&A, URL-encoded: %d", p.status)
	}

	// An incomplete entry: 400, what was typed kept.
	p = e.upload(base, map[string]string{"kind": "qa", "question": "Typed question", "answer": " "}, "", nil)
	if p.status != http.StatusBadRequest {
		t.Fatalf("missing answer: %d", p.status)
	}
	agMustContain(t, "missing answer", p.body, "needs a question and an answer", ">Typed question</textarea>")

	// Edit.
	p = e.upload(base+"/"+qa.ID, map[string]string{"question": "Do you ship abroad?", "answer": "Yes, everywhere.", "lang": ""}, "", nil)
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=kb.saved#kb-"+qa.ID {
		t.Fatalf("edit: %d %q %s", p.status, p.location, p.body)
	}
	if kb := e.knowledge(a); kb[0].ID != qa.ID || kb[0].Question != "Do you ship abroad?" || kb[0].Answer != "Yes, everywhere." || kb[0].Lang != "" {
		t.Fatalf("after editing: %+v", kb[0])
	}
	p = e.post(base+"/"+qa.ID, url.Values{"question": {"Edited but"}, "answer": {strings.Repeat("y", 10001)}})
	if p.status != http.StatusBadRequest {
		t.Fatalf("too long an answer: %d", p.status)
	}
	agMustContain(t, "failed edit", p.body, "at most 10000 characters", "<details open>", ">Edited but</textarea>")

	// Documents: pasted, uploaded, refused.
	p = e.upload(base, map[string]string{"kind": "document", "title": "Returns", "text": "# Returns\n\nWithin 30 days."}, "", nil)
	if p.status != http.StatusSeeOther {
		t.Fatalf("paste a document: %d %s", p.status, p.body)
	}
	p = e.upload(base, map[string]string{"kind": "document", "lang": "ro"}, "livrare.md", []byte("# Livrare\n\nÎn toată țara."))
	if p.status != http.StatusSeeOther {
		t.Fatalf("upload a document: %d %s", p.status, p.body)
	}
	kb = e.knowledge(a)
	doc := kb[len(kb)-1]
	if len(kb) != 4 || doc.Kind != domain.KindDocument || doc.Title != "livrare" || doc.Text != "# Livrare\n\nÎn toată țara." || doc.Lang != "ro" {
		t.Fatalf("after the upload: %+v", kb)
	}
	for _, tt := range []struct {
		name   string
		fields map[string]string
		file   []byte
		status int
		msg    string
	}{
		{"both", map[string]string{"kind": "document", "title": "Typed title", "text": "pasted"}, []byte("file"), 400, "not both"},
		{"not UTF-8", map[string]string{"kind": "document", "title": "Typed title"}, []byte{0xff, 0xfe, 'a'}, 400, "is not text, Markdown, HTML, PDF or Word"},
		{"too large", map[string]string{"kind": "document", "title": "Typed title"}, bytes.Repeat([]byte("a"), agentadmin.MaxUpload+1), 413, "larger than 10 MiB"},
		{"empty", map[string]string{"kind": "document", "title": "Typed title"}, nil, 400, "A document needs a text"},
	} {
		name := "f.txt"
		if tt.file == nil {
			name = ""
		}
		p := e.upload(base, tt.fields, name, tt.file)
		if p.status != tt.status {
			t.Errorf("%s: %d", tt.name, p.status)
		}
		agMustContain(t, tt.name, p.body, tt.msg, `value="Typed title"`)
	}
	p = e.upload(base+"/"+doc.ID, map[string]string{"title": "Delivery", "text": "Everywhere.", "lang": "ro"}, "", nil)
	if p.status != http.StatusSeeOther {
		t.Fatalf("edit a document: %d", p.status)
	}
	if kb := e.knowledge(a); kb[3].Title != "Delivery" || kb[3].Text != "Everywhere." || kb[3].Kind != domain.KindDocument {
		t.Fatalf("after editing the document: %+v", kb[3])
	}

	// Delete.
	p = e.post(base+"/"+qa.ID+"/delete", nil)
	if p.status != http.StatusSeeOther || p.location != "/agents/"+a.ID+"?flash=kb.deleted#knowledge" {
		t.Fatalf("delete: %d %q", p.status, p.location)
	}
	if kb := e.knowledge(a); len(kb) != 3 || kb[0].ID == qa.ID {
		t.Fatalf("after deleting: %+v", kb)
	}
	if p := e.post(base+"/"+qa.ID+"/delete", nil); p.status != http.StatusNotFound {
		t.Fatalf("delete again: %d", p.status)
	}
	if p := e.post(base+"/"+qa.ID, url.Values{"question": {"q"}, "answer": {"a"}}); p.status != http.StatusNotFound {
		t.Fatalf("edit a deleted item: %d", p.status)
	}
	// Every change told the knowledge cache.
	if len(e.invalidated) != 7 || e.invalidated[0] != a.ID {
		t.Fatalf("invalidations: %v", e.invalidated)
	}
}

func TestAgentsOwnersOnly(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, key := e.newAgent(e.owner.AccountID, "Helper")
	op, err := e.st.CreateUser(context.Background(), store.NewUser{AccountID: e.owner.AccountID, Email: "op@example.com", Name: "Op", PasswordHash: "x", Role: domain.UserOperator})
	if err != nil {
		t.Fatal(err)
	}
	opSession := e.sessionOf(op)
	p := e.send(opSession, httptest.NewRequest("GET", "/agents/"+a.ID, nil))
	if p.status != http.StatusForbidden {
		t.Fatalf("operator views an agent: %d", p.status)
	}
	agMustNotContain(t, "operator's page", p.body, key)
	if p := e.send(opSession, httptest.NewRequest("GET", "/agents", nil)); p.status != http.StatusForbidden || strings.Contains(p.body, "Helper") {
		t.Fatalf("operator lists agents: %d", p.status)
	}
	for _, path := range []string{"/agents", "/agents/" + a.ID, "/agents/" + a.ID + "/keys", "/agents/" + a.ID + "/keys/" + key + "/active"} {
		if p := e.postAs(opSession, path, url.Values{"name": {"X"}, "active": {"false"}}); p.status != http.StatusForbidden {
			t.Errorf("operator POST %s: %d", path, p.status)
		}
	}
	if keys := e.keys(a); len(keys) != 1 || !keys[0].Active {
		t.Fatalf("an operator changed keys: %+v", keys)
	}
	// Without a session: to the sign-in page.
	if p := e.get("/agents"); p.status != http.StatusOK {
		t.Fatalf("owner: %d", p.status)
	}
	if p := e.send("nope", httptest.NewRequest("GET", "/agents", nil)); p.status != http.StatusSeeOther || p.location != "/signin" {
		t.Fatalf("no session: %d %q", p.status, p.location)
	}
}

func TestAgentsOfAnotherAccount(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	other, _ := e.account("other@example.com")
	a, key := e.newAgent(other.AccountID, "Theirs")
	if _, err := e.st.AddKnowledge(context.Background(), a.AccountID, a.ID, domain.KnowledgeEntry{Question: "Q", Answer: "A"}, domain.KnowledgeLimits{}); err != nil {
		t.Fatal(err)
	}
	item := e.knowledge(a)[0].ID
	if p := e.get("/agents/" + a.ID); p.status != http.StatusNotFound || strings.Contains(p.body, "Theirs") {
		t.Fatalf("another account's agent: %d", p.status)
	}
	base := "/agents/" + a.ID
	for _, path := range []string{base, base + "/keys", base + "/keys/" + key + "/active", base + "/knowledge", base + "/knowledge/" + item, base + "/knowledge/" + item + "/delete"} {
		p := e.post(path, url.Values{"name": {"Mine"}, "active": {"false"}, "question": {"q"}, "answer": {"a"}})
		if p.status != http.StatusNotFound {
			t.Errorf("POST %s: %d", path, p.status)
		}
	}
	if got, _ := e.st.Agent(context.Background(), a.AccountID, a.ID); got.ChatbotName != "Theirs" {
		t.Fatal("another account's agent was renamed")
	}
	if keys := e.keys(a); len(keys) != 1 || !keys[0].Active {
		t.Fatalf("another account's keys changed: %+v", keys)
	}
	if kb := e.knowledge(a); len(kb) != 1 || kb[0].Question != "Q" {
		t.Fatalf("another account's knowledge changed: %+v", kb)
	}
	if p := e.get("/agents"); strings.Contains(p.body, "Theirs") {
		t.Fatal("the list shows another account's agent")
	}
}

func TestAgentPagesEscapeHTML(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	evil := `<script>alert(1)</script>`
	p := e.post("/agents", url.Values{"name": {evil}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("create: %d", p.status)
	}
	id := strings.TrimPrefix(p.location[:strings.Index(p.location, "?")], "/agents/")
	img := `<img src=x onerror=alert(2)>`
	e.upload("/agents/"+id+"/knowledge", map[string]string{"kind": "qa", "question": img, "answer": evil}, "", nil)
	e.upload("/agents/"+id+"/knowledge", map[string]string{"kind": "document", "title": img}, "x.md", []byte(evil))
	e.post("/agents/"+id, url.Values{"name": {evil}, "greeting": {evil}, "color": {"#2563eb"}, "position": {"right"},
		"launcher_text": {"</textarea>"}, "handoff_message": {`"><b>`}, "model": {`"onfocus="x`}})
	for _, path := range []string{"/agents", "/agents/" + id} {
		p := e.get(path)
		agMustNotContain(t, path, p.body, evil, img, "alert(1)</", `"><b>`, `"onfocus="x`)
		agMustContain(t, path, p.body, "&lt;script&gt;alert(1)&lt;/script&gt;")
	}
	p = e.get("/agents/" + id)
	agMustContain(t, "agent page", p.body, "&lt;img src=x onerror=alert(2)&gt;")
	// The only script elements are the layout's app.js and the preview.
	if n := strings.Count(p.body, "<script"); n != 2 {
		t.Fatalf("%d script elements", n)
	}
}
