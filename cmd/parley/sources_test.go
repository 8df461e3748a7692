package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The program as started wires website sources to the job queue: a source
// created through the API is synced by the queue's worker (the crawler and
// extraction on a local site), and the agent then answers from its pages,
// citing them. On both stores, since each has its own queue driver.
func TestServeSyncsSourcesOnTheQueue(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		checkSourceSync(t, filepath.Join(t.TempDir(), "parley.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		checkSourceSync(t, postgresURL(t))
	})
}

func checkSourceSync(t *testing.T, db string) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Acme Bikes</title></head><body>
<nav><a href="/">Home</a> <a href="/repairs">Repairs</a></nav><main><h1>Acme Bikes</h1>
<p>We sell city bikes and mountain bikes, and we repair them in our workshop.</p>
<p>Read about the <a href="/repairs">repair service</a>.</p></main></body></html>`)
		case "/repairs":
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Repair service</title></head><body>
<main><h1>Repair service</h1><h2>Flat tyre repair</h2>
<p>A flat tyre repair costs 80 lei and takes about twenty minutes at our workshop.</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"account", "create", "--db", db, "--email", "bikes@example.com",
		"--password", "correct-horse-battery-42"}, func(string) string { return "" }, nil, &out, &errb); code != 0 {
		t.Fatalf("account create: exit %d: %s", code, errb.String())
	}
	var created map[string]string
	if err := json.Unmarshal(out.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	token := created["api_token"]
	// The site is on 127.0.0.1, which the outbound guard refuses unless
	// the administrator lifts the rule.
	a := start(t, db, map[string]string{"PARLEY_DEMO": "false", "PARLEY_FETCH_ALLOW_PRIVATE": "true"})

	status, agent := post(t, a.base+"/api/v1/agents", token, map[string]any{"chatbot_name": "Bikes"})
	if status != 201 {
		t.Fatalf("create agent: %d %v", status, agent)
	}
	agentID, key := agent["id"].(string), agent["widget_key"].(string)
	status, src := post(t, a.base+"/api/v1/agents/"+agentID+"/sources", token, map[string]any{"kind": "website", "url": site.URL + "/"})
	if status != 201 || src["status"] != "queued" {
		t.Fatalf("create source: %d %v", status, src)
	}
	sourceURL := a.base + "/api/v1/agents/" + agentID + "/sources/" + src["id"].(string)
	// The queue polls SQLite about once a second; the crawl itself is two
	// pages. The deadline is generous for a loaded machine, not a timing
	// assertion.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, src = get(t, sourceURL, token)
		if src["status"] == "ready" || src["status"] == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the source was not synced: %v\nlogs:\n%s", src, a.logs.String())
		}
	}
	if src["status"] != "ready" || src["pages"] != 2.0 {
		t.Fatalf("after the sync: %v", src)
	}

	_, init := post(t, a.base+"/api/widget/init", "", map[string]any{"key": key})
	conv := init["conversation_id"].(string)
	// The sync bumped the agent's version; its index is rebuilt in the
	// background, so the answer may come from the previous (empty) index
	// for a moment.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, reply := post(t, a.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": "how much is a flat tyre repair?"})
		if status != 200 {
			t.Fatalf("chat: %d %v", status, reply)
		}
		if resp, _ := reply["response"].(string); strings.Contains(resp, "80 lei") {
			sources, _ := json.Marshal(reply["sources"])
			if want := `[{"title":"Repair service","url":"` + site.URL + `/repairs"}]`; string(sources) != want {
				t.Fatalf("sources %s, want %s", sources, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent does not answer from the synced page: %v", reply)
		}
	}
}
