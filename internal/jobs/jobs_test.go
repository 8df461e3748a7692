package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"
)

// TestSyncRunsHook: an enqueued sync runs the SyncSource hook with its
// source, and the job ends completed.
func TestSyncRunsHook(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		rec := newRecorder(false)
		q := startQueue(t, Options{DB: db, SyncSource: rec.SyncSource})
		if err := q.EnqueueSync(t.Context(), "src_a"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the sync of src_a to complete", func() bool { return jobState(t, q, "src_a") == rivertype.JobStateCompleted })
		if n := rec.count("src_a"); n != 1 {
			t.Errorf("SyncSource(src_a) called %d times, want 1", n)
		}
		if err := q.EnqueueSync(t.Context(), ""); err == nil {
			t.Error("EnqueueSync of an empty id: no error")
		}
	})
}

// TestSyncOncePerSource: enqueues of a source while its sync is queued or
// running add nothing; once it has completed, the next enqueue runs again.
func TestSyncOncePerSource(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		rec := newRecorder(true)
		q := openQueue(t, Options{DB: db, SyncSource: rec.SyncSource})
		ctx := t.Context()
		for range 3 { // queued, not yet started
			if err := q.EnqueueSync(ctx, "src_a"); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(syncJobs(t, q, "src_a")); n != 1 {
			t.Fatalf("%d jobs after three enqueues, want 1", n)
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if id := rec.waitEntered(t); id != "src_a" {
			t.Fatalf("sync of %s started", id)
		}
		for range 3 { // running
			if err := q.EnqueueSync(ctx, "src_a"); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(syncJobs(t, q, "src_a")); n != 1 {
			t.Fatalf("%d jobs after enqueues during the run, want 1", n)
		}
		close(rec.release)
		waitFor(t, "the sync to complete", func() bool { return jobState(t, q, "src_a") == rivertype.JobStateCompleted })
		if n := rec.count("src_a"); n != 1 {
			t.Fatalf("SyncSource called %d times, want 1", n)
		}
		// A completed sync does not block the next.
		if err := q.EnqueueSync(ctx, "src_a"); err != nil {
			t.Fatal(err)
		}
		rec.waitEntered(t)
		waitFor(t, "the second sync", func() bool { return rec.count("src_a") == 2 })
	})
}

// TestTwoInstances: two queues on one database ("instances") both enqueue
// the same sources at once, then both work; each source syncs exactly
// once, whichever instance runs it.
func TestTwoInstances(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		var mu sync.Mutex
		calls := map[string]int{}
		var total atomic.Int32
		hook := func(_ context.Context, id string) error {
			mu.Lock()
			calls[id]++
			mu.Unlock()
			total.Add(1)
			return nil
		}
		a := openQueue(t, Options{DB: db, SyncSource: hook, Workers: 2})
		b := openQueue(t, Options{DB: db, SyncSource: hook, Workers: 2})
		const sources = 8
		var wg sync.WaitGroup
		errs := make(chan error, 4*sources)
		for _, q := range []*Queue{a, b, a, b} {
			wg.Go(func() {
				for i := range sources {
					errs <- q.EnqueueSync(t.Context(), fmt.Sprintf("src_%d", i))
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range []*Queue{a, b} {
			if err := q.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, "every source to sync", func() bool {
			for i := range sources {
				if jobState(t, a, fmt.Sprintf("src_%d", i)) != rivertype.JobStateCompleted {
					return false
				}
			}
			return true
		})
		mu.Lock()
		defer mu.Unlock()
		for i := range sources {
			if n := calls[fmt.Sprintf("src_%d", i)]; n != 1 {
				t.Errorf("src_%d synced %d times, want 1", i, n)
			}
		}
		if total.Load() != sources {
			t.Errorf("%d syncs in all, want %d", total.Load(), sources)
		}
	})
}

// TestStopCancelsRunningJob: Stop waits the grace period, then cancels a
// running job's context; the job goes back in the queue and the next
// instance runs it.
func TestStopCancelsRunningJob(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		rec := newRecorder(true)
		q := startQueue(t, Options{DB: db, SyncSource: rec.SyncSource, StopGrace: 50 * time.Millisecond})
		if err := q.EnqueueSync(t.Context(), "src_a"); err != nil {
			t.Fatal(err)
		}
		rec.waitEntered(t)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		rec.mu.Lock()
		err := rec.cancelled["src_a"]
		rec.mu.Unlock()
		if err == nil {
			t.Fatal("the running sync's context was not cancelled by Stop")
		}

		next := newRecorder(false)
		q2 := startQueue(t, Options{DB: db, SyncSource: next.SyncSource})
		waitFor(t, "the next instance to run the interrupted sync", func() bool {
			return jobState(t, q2, "src_a") == rivertype.JobStateCompleted
		})
		if n := next.count("src_a"); n != 1 {
			t.Errorf("the next instance synced src_a %d times, want 1", n)
		}
	})
}

// TestPeriodicEnqueueDue: the due job runs at start and then every period.
func TestPeriodicEnqueueDue(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		var calls atomic.Int32
		startQueue(t, Options{DB: db, DueEvery: 100 * time.Millisecond, EnqueueDue: func(ctx context.Context) error {
			calls.Add(1)
			return nil
		}})
		waitFor(t, "EnqueueDue at start and after a period", func() bool { return calls.Load() >= 2 })
	})
}

// TestNoSyncHook: without a SyncSource hook a sync job ends cancelled at
// once, the reason in its errors, and is not retried.
func TestNoSyncHook(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		q := startQueue(t, Options{DB: db})
		if err := q.EnqueueSync(t.Context(), "src_a"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the job to end", func() bool { return jobState(t, q, "src_a") == rivertype.JobStateCancelled })
		j := syncJobs(t, q, "src_a")[0]
		if len(j.Errors) != 1 || !strings.Contains(j.Errors[0].Error, "no SyncSource hook") {
			t.Errorf("errors %+v, want one naming the missing hook", j.Errors)
		}
	})
}

// TestRetryThenSyncNow: a failed sync waits for its retry; an owner's
// "sync now" (EnqueueSync) makes that retry due at once instead of adding
// a second job.
func TestRetryThenSyncNow(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		rec := newRecorder(false)
		rec.fail["src_a"] = 1
		q := startQueue(t, Options{DB: db, SyncSource: rec.SyncSource})
		if err := q.EnqueueSync(t.Context(), "src_a"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the failed sync to wait for its retry", func() bool { return jobState(t, q, "src_a") == rivertype.JobStateRetryable })
		j := syncJobs(t, q, "src_a")[0]
		if wait := time.Until(j.ScheduledAt); wait < 30*time.Second {
			t.Errorf("retry in %s, want the kind's first backoff (1 min)", wait)
		}
		if err := q.EnqueueSync(t.Context(), "src_a"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the retry to run now", func() bool { return jobState(t, q, "src_a") == rivertype.JobStateCompleted })
		if n := rec.count("src_a"); n != 2 {
			t.Errorf("SyncSource called %d times, want 2", n)
		}
	})
}

func TestOpenRejectsRescueWithinTimeout(t *testing.T) {
	t.Parallel()
	_, err := Open(t.Context(), Options{DB: "unused.db", SyncTimeout: time.Hour, RescueAfter: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "rescue delay") {
		t.Fatalf("Open: %v, want the rescue delay refused", err)
	}
}

func TestBackoff(t *testing.T) {
	steps := []time.Duration{time.Minute, 10 * time.Minute}
	for attempt, want := range map[int]time.Duration{0: time.Minute, 1: time.Minute, 2: 10 * time.Minute, 7: 10 * time.Minute} {
		if got := backoff(steps, attempt); got != want {
			t.Errorf("backoff after attempt %d = %s, want %s", attempt, got, want)
		}
	}
	if got := backoff(nil, 3); got != time.Minute {
		t.Errorf("backoff without steps = %s", got)
	}
	if !errors.Is(Permanent(errors.ErrUnsupported), errors.ErrUnsupported) || Permanent(nil) != nil {
		t.Error("Permanent does not wrap its error")
	}
}

// TestTablesInTheURLsSchema: on PostgreSQL River's tables go in the schema
// the URL's search_path names, beside the store's, not in public.
func TestTablesInTheURLsSchema(t *testing.T) {
	t.Parallel()
	db := postgresDB(t)
	openQueue(t, Options{DB: db})
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables []string
	rows, err := conn.Query(t.Context(), `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, schema)
	if err == nil {
		tables, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"river_job", "river_leader", "river_migration", "river_queue"} {
		if !slices.Contains(tables, want) {
			t.Errorf("schema %s has %v, want %s among them", schema, tables, want)
		}
	}
}

// TestPeriodicPurge: the retention purge runs at start and then on the
// schedule PurgeNext gives (here every 100 ms).
func TestPeriodicPurge(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		var calls atomic.Int32
		startQueue(t, Options{DB: db, PurgeNext: func(at time.Time) time.Time { return at.Add(100 * time.Millisecond) },
			Purge: func(ctx context.Context) error {
				calls.Add(1)
				return nil
			}})
		waitFor(t, "Purge at start and on its schedule", func() bool { return calls.Load() >= 2 })
	})
}
