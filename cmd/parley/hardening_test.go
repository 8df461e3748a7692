package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/secret"
)

// Issue 14 from the command line: the demo's credentials, the logs, help,
// and passwords kept out of shell history.

func noEnv(string) string { return "" }

// A first start whose output is not a terminal (systemd, Docker, CI logs)
// prints the demo page, the widget key and how to get in, but neither the
// password nor the API token; the way in it names works. Sign-up is off.
func TestFirstStartWithoutTerminal(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	a := start(t, db, nil)
	out := a.stdout.String()
	port := a.base[strings.LastIndex(a.base, ":")+1:]
	for _, want := range []string{"Demo page:   http://localhost:" + port + "/demo", "Widget key:  wk_", "Login:       demo@parley.local",
		"parley account password --email demo@parley.local --password-stdin"} {
		if !strings.Contains(out, want) {
			t.Errorf("the banner lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pt_") || strings.Contains(out, "Password:") || strings.Contains(out, "API token:") {
		t.Fatalf("a banner for logs shows a secret:\n%s", out)
	}

	// Sign-up is off by default: the page says so and the sign-in page
	// does not link to it.
	res, err := http.PostForm(a.base+"/signup", url.Values{"email": {"x@example.com"}, "password": {"a long enough one"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-up on a default start: %d, want 403", res.StatusCode)
	}

	// The way in: a password from stdin, then the dashboard.
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"account", "password", "--db", db, "--email", "demo@parley.local", "--password-stdin"},
		noEnv, strings.NewReader("the demo's new password\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("account password: exit %d: %s", code, stderr.String())
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = client.PostForm(a.base+"/signin", url.Values{"email": {"demo@parley.local"}, "password": {"the demo's new password"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/inbox" {
		t.Fatalf("signing in with the password set: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// The start lines show URLs without their secrets.
func TestStartLogHidesURLSecrets(t *testing.T) {
	t.Parallel()
	a := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{
		"PARLEY_DEMO": "false", "PARLEY_LLM_MODEL": "m",
		"PARLEY_LLM_BASE_URL": "http://user:S3cretPW@127.0.0.1:9/v1?api_key=S3cretPW",
	})
	logs := a.logs.String()
	if !strings.Contains(logs, "http://user:xxxxx@127.0.0.1:9/v1?api_key=xxxxx") || strings.Contains(logs, "S3cretPW") {
		t.Fatalf("start log:\n%s", logs)
	}
}

// A mistake on the command line says what is wrong, not every flag with
// its value from the environment.
func TestBadFlagShowsNoSecrets(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PARLEY_LLM_API_KEY": "sk-S3cretPW", "PARLEY_DB": "postgres://u:S3cretPW@127.0.0.1:1/x"}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--no-such-flag"}, func(k string) string { return env[k] }, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "flag provided but not defined: -no-such-flag") ||
		!strings.Contains(stderr.String(), "parley --help") || strings.Contains(stdout.String()+stderr.String(), "S3cretPW") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// Every way of asking for help prints the commands or the flags on stdout
// and exits 0; never a value from the environment.
func TestHelp(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PARLEY_LLM_API_KEY": "sk-S3cretPW"}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"serve", "--help"}, {"serve", "-h"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, func(k string) string { return env[k] }, nil, &stdout, &stderr)
		out := stdout.String()
		for _, want := range []string{"parley account create", "parley account password --email E [--password-stdin | --password P]",
			"parley version", "-addr string", "PARLEY_DB", "-signup string", `(default "false")`} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: the help lacks %q", args, want)
			}
		}
		if code != 0 || stderr.Len() > 0 || strings.Contains(out, "S3cretPW") {
			t.Errorf("%v: exit %d, stderr %q, secret shown: %v", args, code, stderr.String(), strings.Contains(out, "S3cretPW"))
		}
	}
	dbEnv := func(k string) string {
		if k == "PARLEY_DB" {
			return "postgres://u:S3cretPW@127.0.0.1/x"
		}
		return ""
	}
	for args, want := range map[string]string{
		"account --help":        "parley account password",
		"account help":          "parley account limits",
		"account create --help": "-password-stdin",
		"account password -h":   "read the password from the first line of standard input",
		"account limits --help": "-spend-cap-cents int",
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), strings.Fields(args), dbEnv, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) ||
			stderr.Len() > 0 || strings.Contains(stdout.String(), "S3cretPW") {
			t.Errorf("parley %s: exit %d, stdout lacks %q: %q %q", args, code, want, stdout.String(), stderr.String())
		}
	}
}

// --password-stdin reads one line (a script pipes it in; nothing shows in
// ps or shell history); the rule for new passwords holds on every path.
func TestAccountPasswordFromStdin(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	cmd := func(stdin string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"account"}, append(args, "--db", db)...), noEnv, strings.NewReader(stdin), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, out, errs := cmd("  spaces kept inside  \r\nsecond line ignored\n", "create", "--email", "ana@example.com", "--password-stdin")
	var created map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &created) != nil || !strings.HasPrefix(created["api_token"], "pt_") {
		t.Fatalf("create: exit %d %q %q", code, out, errs)
	}
	passwordIs(t, db, "ana@example.com", "  spaces kept inside  ")

	code, out, errs = cmd("ana's second password", "password", "--email", "ana@example.com", "--password-stdin")
	if code != 0 || !strings.Contains(out, `"password":"changed"`) {
		t.Fatalf("password: exit %d %q %q", code, out, errs)
	}
	passwordIs(t, db, "ana@example.com", "ana's second password")

	// --password still works for scripts.
	if code, _, errs := cmd("", "password", "--email", "ana@example.com", "--password", "ana's third password"); code != 0 {
		t.Fatalf("--password: exit %d %s", code, errs)
	}
	passwordIs(t, db, "ana@example.com", "ana's third password")

	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"short-one\n", []string{"password", "--email", "ana@example.com", "--password-stdin"}, "at least 10 characters"},
		{"Password123\n", []string{"password", "--email", "ana@example.com", "--password-stdin"}, "most common"},
		{"", []string{"password", "--email", "ana@example.com", "--password", "qwertyuiop"}, "most common"},
		{"", []string{"create", "--email", "bo@example.com", "--password", "1234567890"}, "most common"},
		{"iloveyou\n", []string{"create", "--email", "bo@example.com", "--password-stdin"}, "at least 10 characters"},
		{"\n", []string{"password", "--email", "ana@example.com", "--password-stdin"}, "no password"},
		{"x", []string{"password", "--email", "ana@example.com", "--password-stdin", "--password", "y"}, "not both"},
		{"", []string{"password", "--email", "ana@example.com"}, "not a terminal"},
		{"a good password\n", []string{"password", "--email", "nobody@example.com", "--password-stdin"}, "no user with email"},
	} {
		if code, _, errs := cmd(tt.stdin, tt.args...); code == 0 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to mention %q", tt.args, code, errs, tt.want)
		}
	}
	passwordIs(t, db, "ana@example.com", "ana's third password")
	if code, _, _ := cmd("", "limits", "--email", "bo@example.com"); code == 0 {
		t.Fatal("an account was created with a refused password")
	}
}

// Without a password flag on a terminal, the command asks twice, without
// echo.
func TestAccountPasswordPrompt(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	ptm, tty := openPTY(t)
	prompts := &syncBuffer{}
	done := make(chan int, 1)
	var stdout bytes.Buffer
	go func() {
		done <- run(context.Background(), []string{"account", "create", "--db", db, "--email", "cy@example.com"}, noEnv, tty, &stdout, prompts)
	}()
	typed := &syncBuffer{}
	go io.Copy(typed, ptm) // what the terminal shows
	for _, prompt := range []string{"Password: ", "Again: "} {
		// Type once the prompt is out and echo is off, as a person would.
		for deadline := time.Now().Add(10 * time.Second); !strings.HasSuffix(prompts.String(), prompt) || echoing(t, tty); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q prompt with echo off: %q", prompt, prompts.String())
			}
		}
		if _, err := ptm.Write([]byte("typed, not shown\r")); err != nil {
			t.Fatal(err)
		}
	}
	if code := <-done; code != 0 || !strings.Contains(stdout.String(), "api_token") {
		t.Fatalf("exit %d: %q %q", code, stdout.String(), prompts.String())
	}
	passwordIs(t, db, "cy@example.com", "typed, not shown")
	if strings.Contains(typed.String(), "typed") {
		t.Fatalf("the terminal echoed the password: %q", typed.String())
	}
}

func passwordIs(t *testing.T, db, email, want string) {
	t.Helper()
	st, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.UserByEmail(context.Background(), email)
	if err != nil || !secret.CheckPassword(u.PasswordHash, want) {
		t.Fatalf("%s's password is not %q (%v)", email, want, err)
	}
}
