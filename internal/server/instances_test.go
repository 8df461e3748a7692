package server

import (
	"bufio"
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/notify"
	"parley/internal/secret"
	"parley/internal/store/postgres"
	"parley/internal/testsvc"
)

// Several instances of Parley, as production runs them: each with its own
// store connection to one PostgreSQL database and its own notifier, and
// the notifiers sharing Redis, or PostgreSQL's LISTEN/NOTIFY without
// Redis (cmd/parley's sharedState).

// postgresSchema creates a fresh schema on the test PostgreSQL, dropped when
// the test ends, and returns a URL whose search_path puts everything in it
// (the test skips without PostgreSQL unless it is required).
func postgresSchema(tb testing.TB) string {
	tb.Helper()
	base := testsvc.PostgresURL(tb)
	ctx := context.Background()
	schema := strings.ToLower(secret.ID("srv_", 8))
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.Background())
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// openPostgres opens a store on url, closed when the test ends (before the
// schema is dropped: cleanups run last first).
func openPostgres(tb testing.TB, url string) *postgres.Store {
	tb.Helper()
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// instanceNotifiers are the multi-instance notifier setups of cmd/parley.
var instanceNotifiers = []string{"redis", "postgres"}

// newNotifier makes one instance's notifier of kind over its store's
// database or the shared Redis channel; it is closed when the test ends.
func newNotifier(tb testing.TB, kind string, st *postgres.Store, url, channel string) notify.Notifier {
	tb.Helper()
	quiet := slog.New(slog.DiscardHandler)
	switch kind {
	case "redis":
		n, err := notify.NewRedisNotifier(context.Background(), testsvc.Redis(tb), channel, quiet)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { n.Close() })
		return n
	case "postgres":
		n, err := notify.NewPostgresNotifier(context.Background(), st.Pool(), url, quiet)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { n.Close() })
		return n
	}
	tb.Fatalf("no notifier %q", kind)
	return nil
}

// twoInstances starts instances a and b of one Parley on a fresh
// PostgreSQL schema, telling each other of changes through notifier kind.
func twoInstances(tb testing.TB, kind string, o envOptions) (a, b *env) {
	tb.Helper()
	url := postgresSchema(tb)
	channel := "parley-test:" + rand.Text() + ":notify" // Redis: this test's instances only
	sa, sb := openPostgres(tb, url), openPostgres(tb, url)
	oa, ob := o, o
	oa.store, oa.notifier = sa, newNotifier(tb, kind, sa, url, channel)
	a = newEnvTB(tb, oa)
	ob.store, ob.notifier, ob.peer = sb, newNotifier(tb, kind, sb, url, channel), a
	b = newEnvTB(tb, ob)
	return a, b
}

// listen opens the dashboard's event stream at path with a session on a
// real server of e, and returns a channel that gets a value per "change"
// event; the stream closes when the test ends.
func (e *env) listen(path string, session map[string]string) <-chan struct{} {
	e.t.Helper()
	srv := httptest.NewServer(e.handler)
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(func() { cancel(); srv.Close() })
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
	req.Header.Set("Cookie", session["Cookie"])
	res, err := srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if res.StatusCode != 200 {
		e.t.Fatalf("events: %d", res.StatusCode)
	}
	lines := bufio.NewScanner(res.Body)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "retry:") {
		e.t.Fatalf("events began with %q", lines.Text())
	}
	changes := make(chan struct{}, 100)
	go func() {
		defer res.Body.Close()
		for lines.Scan() {
			if lines.Text() == "event: change" {
				changes <- struct{}{}
			}
		}
	}()
	return changes
}

// generous bounds how long a signal may take between instances in tests;
// it takes milliseconds.
const generous = 10 * time.Second

func within(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// Typing indicators across instances (issue 19): an operator typing on
// the dashboard of instance a wakes a visitor's long poll waiting on
// instance b and shows in b's polls, a reply through a clears it on b
// before b's long poll answers with it, and the visitor typing through b
// refreshes a's conversation page, which shows it. With Redis, and with
// PostgreSQL alone.
func TestTypingAcrossInstances(t *testing.T) {
	t.Parallel()
	for _, kind := range instanceNotifiers {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			clk := newSettable(time.Now()) // indicators never go stale here
			a, b := twoInstances(t, kind, envOptions{clock: clk.now})
			conv, visitor := a.start()
			ana := a.deskOperator("Ana")
			session := a.deskSession(ana)
			poll := func(e *env, q string) response {
				t.Helper()
				r := e.do("GET", "/api/widget/poll?key="+e.key+"&conversation_id="+conv+q, nil, nil)
				if r.status != 200 {
					t.Fatalf("poll: %d %s", r.status, r.raw)
				}
				return r
			}
			typingName := func(r response) string {
				ty, _ := r.body["typing"].(map[string]any)
				s, _ := ty["name"].(string)
				return s
			}
			longPoll := func(e *env, cursor string) <-chan response {
				t.Helper()
				before := e.chat.Waiting()
				done := make(chan response, 1)
				go func() { done <- poll(e, "&wait=25&after="+cursor) }()
				for e.chat.Waiting() == before {
					time.Sleep(time.Millisecond)
				}
				return done
			}
			answer := func(done <-chan response, what string) response {
				t.Helper()
				select {
				case r := <-done:
					return r
				case <-time.After(generous):
					t.Fatalf("b's long poll did not answer %s", what)
				}
				return response{}
			}

			// An operator types on a: b's waiting long poll answers with it.
			cur := poll(b, "").str("cursor")
			done := longPoll(b, cur)
			if r := a.do("POST", "/conversations/"+conv+"/typing", "", session); r.status != 204 {
				t.Fatalf("operator typing on a: %d %s", r.status, r.raw)
			}
			if r := answer(done, "to the operator typing on a"); typingName(r) != "Ana" {
				t.Fatalf("b's long poll: %s", r.raw)
			}
			if r := poll(b, ""); typingName(r) != "Ana" {
				t.Fatalf("b's poll after a's typing signal: %s", r.raw)
			}

			// The reply through a: b's long poll answers with it and
			// without the indicator (the hint went ahead of the signal).
			cur = poll(b, "").str("cursor")
			done = longPoll(b, cur)
			if r := a.do("POST", "/conversations/"+conv+"/reply", "text=Hello+from+Ana", session); r.status != http.StatusSeeOther {
				t.Fatalf("reply on a: %d %s", r.status, r.raw)
			}
			r := answer(done, "to the reply on a")
			if msgs, _ := r.body["messages"].([]any); len(msgs) != 1 || typingName(r) != "" {
				t.Fatalf("b's long poll after the reply: %s", r.raw)
			}

			// The visitor types through b (the reply made the conversation
			// a person's): a's open conversation page refreshes and shows it.
			changes := a.listen("/events?conversation="+conv, session)
			if r := b.do("POST", "/api/widget/typing", map[string]any{"key": b.key, "conversation_id": conv, "visitor_id": visitor}, nil); r.status != 204 {
				t.Fatalf("visitor typing on b: %d %s", r.status, r.raw)
			}
			if !within(changes, generous) {
				t.Fatal("a's conversation page had no change event for the visitor typing on b")
			}
			if p := a.do("GET", "/conversations/"+conv+"?partial=1", nil, session); !strings.Contains(string(p.raw), "data-typing") {
				t.Fatalf("a's conversation page lacks the visitor's typing:\n%s", p.raw)
			}
		})
	}
}
