// Package jobs is Parley's durable background queue: work that must survive
// a restart and must run once across several instances (a source's sync
// today; webhooks, e-mail and retention later). It is built on River
// (github.com/riverqueue/river), whose jobs live in the same database as
// Parley's data: SQLite by default, PostgreSQL when PARLEY_DB is a
// postgres:// URL. Callers see only this package's small API; River's
// types stay inside it.
//
// The guarantees, whichever instance runs a job:
//   - at most one sync of a source is queued or running at a time
//     (EnqueueSync of a source already waiting or syncing is a no-op);
//   - a job left running by an instance that died is run again once
//     Options.RescueAfter has passed since it started;
//   - Stop lets running jobs finish for Options.StopGrace, then cancels
//     their contexts; River puts a job cut short this way back in the
//     queue at once, for the next instance (or the next start) to run.
//
// The job kinds are listed in kinds.go; docs/operations.md ("Background
// jobs") says how to add one.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Defaults for Options' zero values.
const (
	DefaultWorkers = 4
	// DefaultSyncTimeout is the crawl's own cap (crawler.DefaultMaxDuration,
	// 30 min) and time to write the passages: a sync still running then is
	// cancelled.
	DefaultSyncTimeout = 35 * time.Minute
	// DefaultEmbedTimeout: an agent at the knowledge bound has some
	// thousands of passages, a few minutes for a slow local model.
	DefaultEmbedTimeout = 15 * time.Minute
	// DefaultRescueAfter must exceed every kind's timeout, or a sync still
	// working on a live instance would be started a second time elsewhere.
	DefaultRescueAfter = time.Hour
	DefaultStopGrace   = 10 * time.Second
	DefaultDueEvery    = time.Minute
	// DefaultPollInterval is how often an idle instance looks for jobs that
	// arrived without a wake-up (PostgreSQL's NOTIFY, SQLite's notification
	// table); River's own default.
	DefaultPollInterval = time.Second
)

// Options configure Open. Zero values take the defaults above.
type Options struct {
	// DB is Parley's database, in PARLEY_DB's forms: a SQLite file path
	// (optionally "sqlite:PATH") or a postgres:// URL. A search_path in the
	// URL puts River's tables in that schema, beside Parley's.
	DB     string
	Logger *slog.Logger

	// Workers is how many jobs this instance runs at once.
	Workers int
	// SyncTimeout cancels a sync job's context after this long.
	SyncTimeout time.Duration
	// RescueAfter: a job still marked running this long after it started is
	// taken to belong to a dead instance and is run again. It must exceed
	// SyncTimeout.
	RescueAfter time.Duration
	// StopGrace is how long Stop lets running jobs finish before it cancels
	// their contexts.
	StopGrace time.Duration
	// DueEvery is the period of the job that calls EnqueueDue (it also runs
	// when an instance becomes the leader).
	DueEvery     time.Duration
	PollInterval time.Duration

	// SyncSource syncs one source (sources.Service.RunSync). It records a
	// failure on the source itself; an error returned here is retried (see
	// kinds.go) unless wrapped with Permanent. Nil fails sync jobs without
	// retry, saying so.
	SyncSource func(ctx context.Context, sourceID string) error
	// EnqueueDue enqueues the syncs whose schedule has come
	// (sources.Service.EnqueueDue). Nil: nothing is scheduled.
	EnqueueDue func(ctx context.Context) error
	// EmbedAgent embeds an agent's passages that lack vectors
	// (agent.Hybrid.EmbedAgent); an error is retried (kinds_embed.go).
	// Nil fails embedding jobs without retry, saying so.
	EmbedAgent func(ctx context.Context, accountID, agentID string) error
	// EmbedTimeout cancels an embedding job's context after this long.
	EmbedTimeout time.Duration

	// Purge deletes conversations past their account's retention
	// (retention.Service.Purge), run daily by a periodic job
	// (kinds_retention.go). Nil: no purge is scheduled.
	Purge func(ctx context.Context) error
	// PurgeNext is the purge's schedule: the next run after t
	// (retention.NextPurge). Nil: every 24 hours.
	PurgeNext func(t time.Time) time.Time
	// FlushWebhook sends an endpoint's pending deliveries in order
	// (webhooks.Service.Flush); it returns Snooze to wait for a
	// delivery's next retry (kinds_webhook.go). Nil fails flush jobs
	// without retry, saying so.
	FlushWebhook func(ctx context.Context, webhookID string) error
	// SweepWebhooks queues flushes of endpoints with deliveries pending
	// (webhooks.Service.Sweep), every WebhookSweepEvery on the leader.
	// Nil: no sweep.
	SweepWebhooks     func(ctx context.Context) error
	WebhookSweepEvery time.Duration
	// WebhookTimeout cancels a flush job's context after this long.
	WebhookTimeout time.Duration

	// SendWaitAlert mails an operator about a conversation still waiting
	// for a human (offline.Service.SendWaitAlert); SendReplyMail mails an
	// offline visitor the transcript (offline.Service.SendReply). An error
	// is retried (kinds_mail.go). Nil fails those jobs without retry.
	SendWaitAlert func(ctx context.Context, conversationID, userID string) error
	SendReplyMail func(ctx context.Context, conversationID string) error
}

// Queue is the job queue of one Parley instance.
type Queue struct {
	client    client
	closeDB   func() error // the database handles Open made
	closeOnce sync.Once
	closeErr  error
}

// client is what Queue uses of a River client; *river.Client[pgx.Tx] and
// *river.Client[*sql.Tx] both have it, so the rest of the package does not
// depend on the driver.
type client interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobRetry(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// Open connects to the database, brings River's tables up to date (its
// embedded migrations, run under a lock so instances starting together
// take turns) and returns a queue that is not yet working: call Start.
func Open(ctx context.Context, o Options) (*Queue, error) {
	o = o.withDefaults()
	if o.RescueAfter <= o.EmbedTimeout {
		return nil, fmt.Errorf("jobs: the rescue delay (%s) must exceed the embedding timeout (%s)", o.RescueAfter, o.EmbedTimeout)
	}
	if o.RescueAfter <= o.SyncTimeout {
		return nil, fmt.Errorf("jobs: the rescue delay (%s) must exceed the sync timeout (%s), or a sync still running would be run twice",
			o.RescueAfter, o.SyncTimeout)
	}
	if o.Workers < 1 {
		return nil, fmt.Errorf("jobs: workers %d: want at least 1", o.Workers)
	}
	if o.DB == "" {
		return nil, errors.New("jobs: no database")
	}
	workers, periodic := register(o)
	cfg := &river.Config{
		Logger:               quietRiver(o.Logger),
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}},
		Workers:              workers,
		PeriodicJobs:         periodic,
		RescueStuckJobsAfter: o.RescueAfter,
		// Every kind sets its own timeout (addKind insists), which the
		// rescuer also waits for. River requires RescueAfter to exceed this
		// client-wide one; -1 (none) lets RescueAfter be short in tests.
		JobTimeout:        -1,
		SoftStopTimeout:   o.StopGrace,
		FetchPollInterval: o.PollInterval,
		// The least time between two fetches; River's 100 ms unless the
		// poll interval is shorter (tests).
		FetchCooldown: min(o.PollInterval, river.FetchCooldownDefault),
		RetryPolicy:   retryPolicy{},
		// During a rolling upgrade an older instance leaves a job of a kind
		// it does not know for the upgraded ones, instead of failing it.
		FetchOnlyKnownKinds: true,
	}
	var q *Queue
	var err error
	if isPostgres(o.DB) {
		q, err = openPostgres(ctx, o.DB, cfg, o.Logger)
	} else {
		q, err = openSQLite(ctx, o.DB, cfg, o.Logger)
	}
	if err != nil {
		return nil, err
	}
	return q, nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With("component", "jobs")
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.SyncTimeout == 0 {
		o.SyncTimeout = DefaultSyncTimeout
	}
	if o.EmbedTimeout == 0 {
		// Never longer than a sync's: the rescue delay chosen for syncs
		// then covers embeddings too.
		o.EmbedTimeout = min(DefaultEmbedTimeout, o.SyncTimeout)
	}
	if o.RescueAfter == 0 {
		o.RescueAfter = DefaultRescueAfter
	}
	if o.StopGrace == 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.DueEvery == 0 {
		o.DueEvery = DefaultDueEvery
	}
	if o.PollInterval == 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.WebhookSweepEvery == 0 {
		o.WebhookSweepEvery = DefaultWebhookSweepEvery
	}
	if o.WebhookTimeout == 0 {
		o.WebhookTimeout = min(DefaultWebhookTimeout, o.SyncTimeout)
	}
	return o
}

// Start begins working jobs and, on the instance elected leader, the
// queue's upkeep: the periodic jobs, rescuing dead instances' jobs,
// deleting finished jobs after a day. It returns at once. ctx is for
// starting only; Stop ends the work.
func (q *Queue) Start(ctx context.Context) error {
	// River stops hard when the context given to Start ends; serve's
	// context ends on SIGTERM, before the HTTP server has drained, so the
	// queue gets one of its own and stops when Stop says.
	if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	return nil
}

// Stop stops fetching jobs, lets running ones finish for the grace period
// (Options.StopGrace), then cancels their contexts and waits for them to
// return; then it closes the database handles Open made. If ctx ends first
// Stop returns its error and the handles stay open (a job still running
// would otherwise fail to record its end).
func (q *Queue) Stop(ctx context.Context) error {
	if err := q.client.Stop(ctx); err != nil {
		return fmt.Errorf("jobs: stop: %w", err)
	}
	q.closeOnce.Do(func() { q.closeErr = q.closeDB() })
	return q.closeErr
}

// EnqueueSync queues a sync of the source. While a sync of it is already
// queued or running this does nothing (River's unique jobs), so a source
// syncs once at a time whichever instance runs it. A sync waiting for a
// retry after a failure is made due now instead: the owner asked for a
// sync, and gets it at once.
func (q *Queue) EnqueueSync(ctx context.Context, sourceID string) error {
	if sourceID == "" {
		return errors.New("jobs: sync of an empty source id")
	}
	res, err := q.client.Insert(ctx, syncArgs{SourceID: sourceID}, nil)
	if err != nil {
		return fmt.Errorf("jobs: enqueue sync of %s: %w", sourceID, err)
	}
	if res.UniqueSkippedAsDuplicate && res.Job.State == rivertype.JobStateRetryable {
		if _, err := q.client.JobRetry(ctx, res.Job.ID); err != nil {
			return fmt.Errorf("jobs: retry sync of %s now: %w", sourceID, err)
		}
	}
	return nil
}

// Permanent marks a job's error as one a retry cannot mend (a source that
// no longer exists, a URL the guard refuses): the job ends at once with
// the error recorded instead of being tried again.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return river.JobCancel(err)
}
