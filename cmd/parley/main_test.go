package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/config"
	"parley/internal/password"
)

// syncBuffer is a bytes.Buffer safe to write from the server and read from
// the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// instance is the real program serving on a loopback port.
type instance struct {
	base   string
	stdout *syncBuffer
	logs   *syncBuffer // stderr
	stop   func() error
}

// start runs the program with its output going to a buffer, as under
// systemd, Docker or CI.
func start(t *testing.T, db string, env map[string]string) *instance {
	t.Helper()
	return startWith(t, db, env, false)
}

// startOnTerminal runs the program with its standard output on a
// terminal, as a person starting it by hand (Linux only).
func startOnTerminal(t *testing.T, db string, env map[string]string) *instance {
	t.Helper()
	return startWith(t, db, env, true)
}

func startWith(t *testing.T, db string, env map[string]string, terminal bool) *instance {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load([]string{"--addr", "127.0.0.1:0", "--db", db}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	out, logs := &syncBuffer{}, &syncBuffer{}
	var stdout io.Writer = out
	if terminal {
		ptm, tty := openPTY(t)
		stdout = tty
		go io.Copy(out, ptm) // until the terminal closes
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx, cfg, stdout, logs, func(a net.Addr) { addrc <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("serve failed: %v", err)
	}
	stopped := false
	inst := &instance{base: "http://" + addr.String(), stdout: out, logs: logs, stop: func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-errc
	}}
	t.Cleanup(func() { inst.stop() })
	if terminal && cfg.Demo {
		// What went to the terminal reaches the buffer through the
		// pseudo-terminal a moment later.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "/demo"); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("nothing on the terminal:\n%q", out.String())
			}
		}
	}
	return inst
}

func post(t *testing.T, url, token string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

func get(t *testing.T, url, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// field finds "Label:  value" in the first-start banner.
func field(t *testing.T, out, label string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), label+":"); ok {
			return strings.Fields(v)[0]
		}
	}
	t.Fatalf("no %q in output:\n%s", label, out)
	return ""
}

// A person's first start, on a terminal: the demo and its credentials.
func TestFirstStartDemoAndRestartPersistence(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "data", "parley.db") // the directory does not exist yet
	a := startOnTerminal(t, db, nil)
	out := a.stdout.String()
	key, token := field(t, out, "Widget key"), field(t, out, "API token")
	if !strings.HasPrefix(key, "wk_") || !strings.HasPrefix(token, "pt_") || !strings.Contains(out, "/demo") ||
		field(t, out, "Login") != "demo@parley.local" || field(t, out, "Password") == "" {
		t.Fatalf("first-start banner:\n%s", out)
	}
	// The demo's password meets the rule for new passwords and signs in.
	if pw := field(t, out, "Password"); password.Check(pw) != nil {
		t.Fatalf("demo password %q: %v", pw, password.Check(pw))
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(a.base+"/signin", url.Values{"email": {"demo@parley.local"}, "password": {field(t, out, "Password")}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in with the demo password: %d", res.StatusCode)
	}

	// The demo page embeds the demo key; the demo agent answers.
	res, err = http.Get(a.base + "/demo")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), key) || !strings.Contains(string(page), "/widget.js") {
		t.Fatalf("demo page does not embed the widget with the demo key:\n%s", page)
	}
	status, init := post(t, a.base+"/api/widget/init", "", map[string]any{"key": key})
	if status != 200 {
		t.Fatalf("init: %d %v", status, init)
	}
	conv := init["conversation_id"].(string)
	status, reply := post(t, a.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": "How do I add the chat widget to my website?"})
	if status != 200 || !strings.Contains(reply["response"].(string), "data-key") {
		t.Fatalf("demo agent: %d %v", status, reply)
	}
	if status, _ := post(t, a.base+"/api/v1/conversations/"+conv+"/messages", token, map[string]any{"text": "Hi, a human here"}); status != 201 {
		t.Fatalf("operator reply: %d", status)
	}
	if err := a.stop(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}

	// A restart on the same file keeps everything and creates no second demo.
	b := startOnTerminal(t, db, nil)
	if strings.Contains(b.stdout.String(), "Password") || !strings.Contains(b.stdout.String(), "/demo") {
		t.Fatalf("second start output:\n%s", b.stdout.String())
	}
	status, detail := get(t, b.base+"/api/v1/conversations/"+conv, token)
	msgs, _ := detail["messages"].([]any)
	if status != 200 || len(msgs) != 3 || detail["mode"] != "human" {
		t.Fatalf("after restart: %d %v", status, detail)
	}
	status, _ = post(t, b.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": "still there?"})
	if status != 200 {
		t.Fatalf("chat after restart: %d", status)
	}
}

func TestDemoOff(t *testing.T) {
	t.Parallel()
	a := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_DEMO": "false"})
	if strings.Contains(a.stdout.String(), "Widget key") {
		t.Fatalf("PARLEY_DEMO=false still created a demo:\n%s", a.stdout.String())
	}
}

func TestLongPollEndsAtShutdown(t *testing.T) {
	t.Parallel()
	a := start(t, filepath.Join(t.TempDir(), "p.db"), nil)
	key := field(t, a.stdout.String(), "Widget key")
	_, init := post(t, a.base+"/api/widget/init", "", map[string]any{"key": key})
	done := make(chan int)
	go func() {
		s, _ := get(t, a.base+"/api/widget/poll?wait=30&key="+key+"&conversation_id="+init["conversation_id"].(string), "")
		done <- s
	}()
	waitForParkedPolls(t, a.base, 1)
	if err := a.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if s := <-done; s != 200 {
		t.Fatalf("the parked poll got %d, want a normal 200 answer", s)
	}
}

func TestAccountCLI(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"account", "create", "--db", db, "--email", "Owner@Example.com",
		"--password", "s3cret-pass", "--name", "Owner", "--monthly-conversations", "2"}, func(string) string { return "" }, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, errb.String())
	}
	var created map[string]string
	if err := json.Unmarshal(out.Bytes(), &created); err != nil || !strings.HasPrefix(created["api_token"], "pt_") || created["account_id"] == "" {
		t.Fatalf("create printed %q", out.String())
	}
	if strings.Count(strings.TrimSpace(out.String()), "\n") != 0 {
		t.Fatalf("create must print one JSON line, printed %q", out.String())
	}

	// Duplicate email (any case) fails.
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"account", "create", "--db", db, "--email", "owner@example.com", "--password", "another-pass"},
		func(string) string { return "" }, nil, &out, &errb); code == 0 {
		t.Fatal("duplicate account was created")
	}
	// Limits change, via PARLEY_DB this time.
	env := func(k string) string {
		if k == "PARLEY_DB" {
			return db
		}
		return ""
	}
	out.Reset()
	if code := run(context.Background(), []string{"account", "limits", "--email", "owner@example.com",
		"--overage-price-cents", "25", "--spend-cap-cents", "500"}, env, nil, &out, &errb); code != 0 {
		t.Fatalf("limits: exit %d: %s", code, errb.String())
	}
	var changed struct {
		Limits struct {
			Monthly  int   `json:"monthly_conversations"`
			Price    int64 `json:"overage_price_cents"`
			SpendCap int64 `json:"spend_cap_cents"`
		} `json:"limits"`
	}
	if err := json.Unmarshal(out.Bytes(), &changed); err != nil || changed.Limits.Monthly != 2 || changed.Limits.Price != 25 || changed.Limits.SpendCap != 500 {
		t.Fatalf("limits printed %q", out.String())
	}

	// The token works on the running service.
	a := start(t, db, map[string]string{"PARLEY_DEMO": "false"})
	status, usage := get(t, a.base+"/api/v1/usage", created["api_token"])
	if status != 200 || usage["allowance"] != 2.0 || usage["spend_cap_cents"] != 500.0 {
		t.Fatalf("usage with the CLI token: %d %v", status, usage)
	}

	for _, args := range [][]string{
		{"account"},
		{"account", "delete", "--email", "x@y"},
		{"account", "create", "--db", db, "--password", "12345678"},
		{"account", "create", "--db", db, "--email", "a@b.c", "--password", "short"},
		{"account", "limits", "--db", db, "--email", "nobody@example.com"},
		{"account", "limits", "--db", db, "--email", "owner@example.com", "--spend-cap-cents", "-5"},
		{"frobnicate"},
	} {
		if code := run(context.Background(), args, func(string) string { return "" }, nil, io.Discard, io.Discard); code == 0 {
			t.Errorf("%v succeeded, want a failure", args)
		}
	}
}

func TestVersionAndBadFlags(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"version"}, func(string) string { return "" }, nil, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "parley ") {
		t.Fatalf("version: %d %q", code, out.String())
	}
	if code := run(context.Background(), []string{"--rate-limit", "x"}, func(string) string { return "" }, nil, io.Discard, io.Discard); code != 2 {
		t.Fatalf("bad flag: exit %d, want 2", code)
	}
}
