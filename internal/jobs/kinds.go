package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// register lists every job kind the queue runs, and the periodic jobs. A
// later kind (a webhook delivery, an e-mail, a retention sweep) is added
// here: its args type (a Kind name, its InsertOpts), an addKind line with
// its limits and the function that does the work, and an Enqueue method on
// Queue if callers queue it. Every instance registers every kind, so any
// instance can run any job, whatever Options hooks it was given.
func register(o Options) (*river.Workers, []*river.PeriodicJob) {
	w := river.NewWorkers()
	addKind(w, syncSpec(o), func(ctx context.Context, a syncArgs) error {
		if o.SyncSource == nil {
			return Permanent(errors.New("no SyncSource hook is configured on this instance (jobs.Options.SyncSource)"))
		}
		return o.SyncSource(ctx, a.SourceID)
	})
	addKind(w, embedSpec(o), func(ctx context.Context, a embedArgs) error {
		if o.EmbedAgent == nil {
			return Permanent(errors.New("no EmbedAgent hook is configured on this instance (jobs.Options.EmbedAgent)"))
		}
		return o.EmbedAgent(ctx, a.AccountID, a.AgentID)
	})
	addKind(w, dueSpec(o), func(ctx context.Context, _ dueArgs) error {
		if o.EnqueueDue == nil {
			return nil // nothing is scheduled without the hook (see below)
		}
		return o.EnqueueDue(ctx)
	})

	registerMail(o, w)
	periodic := registerWebhooks(o, w)
	if o.EnqueueDue != nil {
		// Only the leader enqueues periodic jobs, so instances do not each
		// add one; RunOnStart also runs it when an instance becomes the
		// leader, so a restart does not wait a period.
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(o.DueEvery),
			func() (river.JobArgs, *river.InsertOpts) { return dueArgs{}, nil },
			&river.PeriodicJobOpts{ID: dueKind, RunOnStart: true}))
	}
	periodic = append(periodic, addRetention(w, o)...)
	return w, periodic
}

// spec is a kind's limits.
type spec struct {
	// attempts is how many times a job may run, rescues after a dead
	// instance included (River counts them as attempts; a job a graceful
	// Stop cut short is not counted). At least 2 for a kind that must run
	// again after a crash.
	attempts int
	// timeout cancels a job's context after this long. Positive: the
	// rescuer waits for it before calling a job stuck.
	timeout time.Duration
	// backoff is the wait before attempt 2, 3, …; the last one repeats.
	backoff []time.Duration
}

// Sync: a failed sync has already recorded its error on the source (the
// owner sees "failed" and why). Two more tries, a minute and ten minutes
// later, mend a passing outage (the site down, the database restarting);
// after that the source's schedule (EnqueueDue) or the owner's "sync now"
// tries again.
const syncKind = "source_sync"

func syncSpec(o Options) spec {
	return spec{attempts: 3, timeout: o.SyncTimeout, backoff: []time.Duration{time.Minute, 10 * time.Minute}}
}

type syncArgs struct {
	SourceID string `json:"source_id" river:"unique"`
}

func (syncArgs) Kind() string { return syncKind }

// InsertOpts makes a sync unique per source while it is waiting, due,
// retrying or running; a completed, failed-for-good or cancelled one does
// not block the next. River requires the first four states; "scheduled"
// is why a future sync of a source is never queued (the schedule is the
// periodic due job instead): it would block "sync now" until it ran.
func (syncArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: syncSpec(Options{}).attempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled,
		}},
	}
}

// Due: one attempt; the next period tries again. Not unique: a due job
// left running by a dead instance must not block the schedule until it is
// rescued, and EnqueueDue is safe to run twice (EnqueueSync is unique).
const dueKind = "sources_enqueue_due"

func dueSpec(o Options) spec {
	return spec{attempts: 1, timeout: max(o.DueEvery, time.Minute)}
}

type dueArgs struct{}

func (dueArgs) Kind() string { return dueKind }

func (dueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: dueSpec(Options{}).attempts}
}

// worker runs one kind with its spec.
type worker[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	spec spec
	run  func(context.Context, A) error
}

func addKind[A river.JobArgs](w *river.Workers, s spec, run func(context.Context, A) error) {
	if s.timeout <= 0 || s.attempts < 1 {
		// Without a timeout River's rescuer would never take the job from
		// a dead instance (the client-wide timeout is none).
		panic("jobs: a job kind needs a positive timeout and at least one attempt")
	}
	river.AddWorker(w, &worker[A]{spec: s, run: run})
}

func (w *worker[A]) Work(ctx context.Context, job *river.Job[A]) error {
	return w.run(ctx, job.Args)
}

func (w *worker[A]) Timeout(*river.Job[A]) time.Duration { return w.spec.timeout }

// NextRetry waits the kind's backoff after a failure. An attempt that
// began longer ago than the kind's timeout has already waited: it is a
// rescue (the rescuer only takes jobs older than RescueAfter, which exceeds
// every timeout) or a job that ran out its time, and runs again at once.
func (w *worker[A]) NextRetry(job *river.Job[A]) time.Time {
	now := time.Now()
	if job.AttemptedAt != nil && now.Sub(*job.AttemptedAt) >= w.spec.timeout {
		return now
	}
	return now.Add(backoff(w.spec.backoff, job.Attempt))
}

// backoff is the wait after the attempt-th attempt failed.
func backoff(steps []time.Duration, attempt int) time.Duration {
	if len(steps) == 0 {
		return time.Minute
	}
	return steps[min(max(attempt, 1), len(steps))-1]
}

// retryPolicy is River's fallback where a worker gives no retry time (a
// job whose args no longer decode): a minute.
type retryPolicy struct{}

func (retryPolicy) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(time.Minute) }
