package jobs

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"parley/internal/store/sqlite"
	"parley/internal/testsvc"
)

// Every behaviour is tested on both stores: eachStore runs f once with a
// fresh SQLite file (Parley's store open on it too, as in production) and
// once with a fresh PostgreSQL schema (River's tables land in it through
// the URL's search_path).
func eachStore(t *testing.T, f func(t *testing.T, db string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, sqliteDB(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, postgresDB(t))
	})
}

func sqliteDB(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "parley.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() }) // runs after the queue's Stop
	return path
}

// postgresDB creates a randomly named schema, dropped when the test ends,
// and returns a URL whose search_path puts everything in it.
func postgresDB(t *testing.T) string {
	base := testsvc.PostgresURL(t)
	b := make([]byte, 8)
	rand.Read(b)
	schema := "jobs_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(t.Context(), base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(t.Context(), `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil || !isPostgres(base) {
		t.Fatalf("PARLEY_TEST_POSTGRES_URL %q: want a postgres:// URL", base)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// fast shortens the queue's waits; the tests poll for outcomes.
func fast(o Options) Options {
	if o.PollInterval == 0 {
		o.PollInterval = 20 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = testLogger()
	}
	return o
}

// testLogger discards River's logs unless PARLEY_JOBS_TEST_LOG is set
// (River's goroutines may log after a test has ended, where t.Log panics).
func testLogger() *slog.Logger {
	if os.Getenv("PARLEY_JOBS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// openQueue opens a queue (not started) that is stopped when the test ends.
func openQueue(t *testing.T, o Options) *Queue {
	t.Helper()
	q, err := Open(t.Context(), fast(o))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return q
}

func startQueue(t *testing.T, o Options) *Queue {
	t.Helper()
	q := openQueue(t, o)
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return q
}

// waitFor polls cond until it holds, failing the test after a deadline far
// above any expected wait (River's scheduler runs every 5 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncJobs lists the sync jobs of a source, in every state.
func syncJobs(t *testing.T, q *Queue, sourceID string) []*rivertype.JobRow {
	t.Helper()
	res, err := q.client.JobList(context.Background(), river.NewJobListParams().Kinds(syncKind).First(1000))
	if err != nil {
		t.Fatal(err)
	}
	var out []*rivertype.JobRow
	for _, j := range res.Jobs {
		if strings.Contains(string(j.EncodedArgs), fmt.Sprintf("%q", sourceID)) {
			out = append(out, j)
		}
	}
	return out
}

// jobState is the state of the source's only sync job ("" with none).
func jobState(t *testing.T, q *Queue, sourceID string) rivertype.JobState {
	t.Helper()
	js := syncJobs(t, q, sourceID)
	switch len(js) {
	case 0:
		return ""
	case 1:
		return js[0].State
	}
	t.Fatalf("%d sync jobs of %s, want at most 1", len(js), sourceID)
	return ""
}

// recorder is a SyncSource hook that counts calls per source. With hold
// set, each call says it started on entered and waits for release (or its
// context's end, which it records).
type recorder struct {
	mu        sync.Mutex
	calls     map[string]int
	cancelled map[string]error
	fail      map[string]int // fail the next n calls of a source
	hold      bool
	entered   chan string
	release   chan struct{}
}

func newRecorder(hold bool) *recorder {
	return &recorder{
		calls: map[string]int{}, cancelled: map[string]error{}, fail: map[string]int{},
		hold: hold, entered: make(chan string, 100), release: make(chan struct{}),
	}
}

func (r *recorder) SyncSource(ctx context.Context, id string) error {
	r.mu.Lock()
	r.calls[id]++
	fail := r.fail[id] > 0
	if fail {
		r.fail[id]--
	}
	r.mu.Unlock()
	if r.hold {
		r.entered <- id
		select {
		case <-r.release:
		case <-ctx.Done():
			r.mu.Lock()
			r.cancelled[id] = ctx.Err()
			r.mu.Unlock()
			return ctx.Err()
		}
	}
	if fail {
		return fmt.Errorf("the site of %s did not answer", id)
	}
	return nil
}

func (r *recorder) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[id]
}

// waitEntered waits for a held call to start and returns its source.
func (r *recorder) waitEntered(t *testing.T) string {
	t.Helper()
	select {
	case id := <-r.entered:
		return id
	case <-time.After(45 * time.Second):
		t.Fatal("no sync started")
		return ""
	}
}

// rawDB runs SQL on the test's database outside River, to look at or
// age what a dead instance left behind.
func rawExec(t *testing.T, db, query string) {
	t.Helper()
	ctx := context.Background()
	if isPostgres(db) {
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, query); err != nil {
			t.Fatal(err)
		}
		return
	}
	sdb, err := sql.Open("sqlite", sqliteDSN(db))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if _, err := sdb.ExecContext(ctx, query); err != nil {
		t.Fatal(err)
	}
}
