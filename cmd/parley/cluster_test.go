package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"parley/internal/testsvc"
)

// Three instances of the real binary on loopback ports, on one PostgreSQL
// and one Redis, with requests spread over them: the rate limit, the quota
// and live updates behave as on one instance, and a killed instance loses
// no acknowledged message.

type proc struct {
	cmd  *exec.Cmd
	base string
}

func redisURL(t *testing.T) string {
	t.Helper()
	testsvc.Redis(t) // skipped without a Redis unless required
	host := strings.Split(testsvc.RedisURL(), "/")[2]
	// A database of its own, so parallel runs do not share counters.
	return fmt.Sprintf("redis://%s/%d", host, 1+rand.IntN(15))
}

// asParley, set in a child's environment, makes the test binary run as
// the program itself (TestMain calls main): the cluster tests start
// instances of the real program without a `go build` (about 10 s of CPU
// for the link alone, on every run).
const asParley = "PARLEY_TEST_RUN_AS_PARLEY"

// buildBinary gives the program to run as a separate process: this test
// binary, which TestMain turns into parley for its children.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	if os.Getenv(asParley) == "1" {
		main()
		return
	}
	// Every process this test binary starts is parley.
	os.Setenv(asParley, "1")
	os.Exit(m.Run())
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startProc(t *testing.T, bin string, env []string) *proc {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(bin, "serve", "--addr", addr)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	p := &proc{cmd: cmd, base: "http://" + addr}
	for range 100 {
		if res, err := http.Get(p.base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("instance on %s did not become healthy", addr)
	return nil
}

// visitorNet is this run's second octet of the visitors' addresses. The
// rate limit counts per address in Redis for a minute, in one of 15
// databases picked at random (redisURL): another run in the same minute
// that picked the same database must not find its counts spent.
var visitorNet = byte(1 + rand.IntN(254))

// from returns a client whose connections come from a loopback address of
// its own (127.visitorNet.2.n), as a distinct visitor's would.
func from(n int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, visitorNet, 2, byte(n))}}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

func call(t *testing.T, c *http.Client, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var m map[string]any
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

func TestThreeInstances(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	db := postgresURL(t)
	rdb := redisURL(t)
	bin := buildBinary(t)

	// An account with an allowance of 20, made with the CLI.
	out, err := exec.Command(bin, "account", "create", "--db", db, "--email", "cluster@example.com",
		"--password", "cluster-pass-1", "--monthly-conversations", "20").Output()
	if err != nil {
		t.Fatalf("account create: %v", err)
	}
	var acc struct {
		APIToken string `json:"api_token"`
	}
	json.Unmarshal(out, &acc)

	env := []string{"PARLEY_DB=" + db, "PARLEY_REDIS_URL=" + rdb, "PARLEY_DEMO=false", "PARLEY_LOG_LEVEL=warn"}
	var nodes []*proc
	for range 3 {
		nodes = append(nodes, startProc(t, bin, env))
	}
	a, c := nodes[0], nodes[2]
	_, agent := call(t, http.DefaultClient, "POST", a.base+"/api/v1/agents", acc.APIToken, map[string]any{
		"chatbot_name": "Cluster", "knowledge": []map[string]any{{"question": "What are your opening hours?", "answer": "9 to 17."}}})
	key, _ := agent["widget_key"].(string)
	if key == "" {
		t.Fatalf("agent: %v", agent)
	}

	t.Run("60 parallel inits against an allowance of 20 admit exactly 20", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		counts := map[int]int{}
		for i := range 60 {
			wg.Go(func() {
				status, _ := call(t, from(10+i), "POST", nodes[i%3].base+"/api/widget/init", "", map[string]any{"key": key})
				mu.Lock()
				counts[status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if counts[200] != 20 || counts[429] != 40 {
			t.Fatalf("statuses %v, want 20×200 and 40×429", counts)
		}
	})

	// More allowance for the rest.
	if out, err := exec.Command(bin, "account", "limits", "--db", db, "--email", "cluster@example.com", "--monthly-conversations", "100000").CombinedOutput(); err != nil {
		t.Fatalf("account limits: %v %s", err, out)
	}

	t.Run("the 31st request of one IP is refused whichever instance it reaches", func(t *testing.T) {
		// The window is aligned to whole minutes. A burst that a minute
		// boundary cut in two proves nothing either way: it is done again
		// from a fresh address, which a boundary cannot cut twice (the
		// burst takes a second or two), instead of waiting for the next
		// minute to begin.
		for attempt := range 3 {
			minute := time.Now().Unix() / 60
			err := rateLimitBurst(t, from(200+attempt), nodes, key)
			if time.Now().Unix()/60 != minute {
				t.Logf("attempt %d crossed a minute boundary; again from another address", attempt+1)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatal("three bursts each crossed a minute boundary")
	})

	t.Run("an operator reply through A reaches a visitor long-polling C", func(t *testing.T) {
		body, latency := replyWakesPoll(t, from(50), a.base, c.base, acc.APIToken, key, "Hello from A")
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 1 || msgs[0].(map[string]any)["text"] != "Hello from A" {
			t.Fatalf("the long poll on C returned %v", body)
		}
		// Woken, not timed out: a 20 s poll answered with the message.
		if latency > 10*time.Second {
			t.Fatalf("the poll on C answered only after %v: it was not woken", latency)
		}
		t.Logf("operator reply on A reached the long poll on C after %v", latency)
	})

	t.Run("killing an instance loses no acknowledged message", func(t *testing.T) {
		b := nodes[1]
		v := from(60)
		_, init := call(t, v, "POST", a.base+"/api/widget/init", "", map[string]any{"key": key})
		conv := init["conversation_id"].(string)
		var acked []string
		stop := make(chan struct{})
		go func() {
			time.Sleep(300 * time.Millisecond)
			b.cmd.Process.Signal(syscall.SIGKILL)
			close(stop)
		}()
		for i := 0; ; i++ {
			text := fmt.Sprintf("message %d", i)
			// A new source address every 25 messages keeps the rate limit
			// out of the way: the kill must land among acknowledged writes.
			status, _ := call(t, from(100+i/25), "POST", b.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": text})
			if status == 200 {
				acked = append(acked, text)
				continue
			}
			select {
			case <-stop:
			default:
				continue
			}
			break
		}
		if len(acked) == 0 {
			t.Fatal("no message was acknowledged before the kill")
		}
		// The transcript comes in pages, newest first: read them all.
		stored := map[string]bool{}
		for before := ""; ; {
			url := a.base + "/api/v1/conversations/" + conv + "?limit=500"
			if before != "" {
				url += "&before=" + before
			}
			_, detail := call(t, http.DefaultClient, "GET", url, acc.APIToken, nil)
			for _, m := range detail["messages"].([]any) {
				stored[m.(map[string]any)["text"].(string)] = true
			}
			if before, _ = detail["next_before"].(string); before == "" {
				break
			}
		}
		for _, text := range acked {
			if !stored[text] {
				t.Fatalf("acknowledged %q is lost", text)
			}
		}
		t.Logf("%d messages acknowledged by B before SIGKILL, all stored", len(acked))
	})
}

// rateLimitBurst sends 30 inits from one client spread over the nodes, all
// admitted, then one more to each node, all refused by the shared limit
// (and not for the quota).
func rateLimitBurst(t *testing.T, one *http.Client, nodes []*proc, key string) error {
	t.Helper()
	for i := range 30 {
		if status, _ := call(t, one, "POST", nodes[i%3].base+"/api/widget/init", "", map[string]any{"key": key}); status != 200 {
			return fmt.Errorf("request %d: %d", i+1, status)
		}
	}
	for _, n := range nodes {
		status, body := call(t, one, "POST", n.base+"/api/widget/init", "", map[string]any{"key": key})
		if status != 429 || body["limit_reached"] != nil {
			return fmt.Errorf("31st+ request on %s: %d %v", n.base, status, body)
		}
	}
	return nil
}

// Without Redis, instances on one PostgreSQL wake each other's long polls
// through LISTEN/NOTIFY.
func TestLiveUpdatesAcrossInstancesWithoutRedis(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	db := postgresURL(t)
	bin := buildBinary(t)
	out, err := exec.Command(bin, "account", "create", "--db", db, "--email", "pg@example.com", "--password", "cluster-pass-1").Output()
	if err != nil {
		t.Fatalf("account create: %v", err)
	}
	var acc struct {
		APIToken string `json:"api_token"`
	}
	json.Unmarshal(out, &acc)
	env := []string{"PARLEY_DB=" + db, "PARLEY_DEMO=false", "PARLEY_LOG_LEVEL=warn"}
	a, b := startProc(t, bin, env), startProc(t, bin, env)
	_, agent := call(t, http.DefaultClient, "POST", a.base+"/api/v1/agents", acc.APIToken, map[string]any{"chatbot_name": "PG"})
	key := agent["widget_key"].(string)
	body, latency := replyWakesPoll(t, http.DefaultClient, a.base, b.base, acc.APIToken, key, "Hello via NOTIFY")
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 1 || latency > 10*time.Second {
		t.Fatalf("the long poll on B returned %v after %v: not woken", body, latency)
	}
	t.Logf("operator reply on A reached the long poll on B after %v (PostgreSQL NOTIFY)", latency)
}

// replyWakesPoll opens a conversation through the instance at home, holds
// a 20-second long poll for it on the instance at poll, and sends text as
// an operator reply through home: what the poll answered, and how long
// after the reply was sent.
func replyWakesPoll(t *testing.T, visitor *http.Client, home, poll, token, key, text string) (map[string]any, time.Duration) {
	t.Helper()
	_, init := call(t, visitor, "POST", home+"/api/widget/init", "", map[string]any{"key": key})
	conv := init["conversation_id"].(string)
	done := make(chan map[string]any)
	go func() {
		_, body := call(t, visitor, "GET", poll+"/api/widget/poll?wait=20&key="+key+"&conversation_id="+conv, "", nil)
		done <- body
	}()
	waitForParkedPolls(t, poll, 1)
	sent := time.Now()
	if status, _ := call(t, http.DefaultClient, "POST", home+"/api/v1/conversations/"+conv+"/messages", token, map[string]any{"text": text}); status != 201 {
		t.Fatalf("operator reply: %d", status)
	}
	body := <-done
	return body, time.Since(sent)
}

// waitForParkedPolls waits until the instance at base reports n long polls
// waiting (its parley_longpolls_waiting gauge, which /metrics serves to a
// loopback client): a poll sent from another goroutine has then been
// received and is waiting for news.
func waitForParkedPolls(t *testing.T, base string, n int) {
	t.Helper()
	want := fmt.Sprintf("\nparley_longpolls_waiting %d\n", n)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(body), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never had %d long polls waiting:\n%s", base, n, body)
		}
	}
}
