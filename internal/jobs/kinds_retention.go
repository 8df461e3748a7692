package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// Retention: once a day (Options.PurgeNext, retention.NextPurge) the
// leader queues a purge of conversations past their account's retention
// (internal/retention); it also runs when an instance becomes the leader,
// so a day missed while no instance ran is made up. One attempt: the
// purge deletes in batches and is safe to run again, so a failed one
// waits for the next day (or leader) instead of retrying.
const purgeKind = "retention_purge"

// DefaultPurgeTimeout bounds one purge, never longer than a sync's (so the
// rescue delay chosen for syncs covers it). A purge cut short has deleted
// what it got to, in whole batches; the next finishes.
const DefaultPurgeTimeout = 30 * time.Minute

func purgeSpec(o Options) spec {
	return spec{attempts: 1, timeout: min(DefaultPurgeTimeout, max(o.SyncTimeout, time.Minute))}
}

type purgeArgs struct{}

func (purgeArgs) Kind() string { return purgeKind }

func (purgeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: purgeSpec(Options{}).attempts}
}

// schedule adapts a "next run after t" function to River's periodic
// schedule.
type schedule func(time.Time) time.Time

func (s schedule) Next(t time.Time) time.Time { return s(t) }

func addRetention(w *river.Workers, o Options) []*river.PeriodicJob {
	addKind(w, purgeSpec(o), func(ctx context.Context, _ purgeArgs) error {
		if o.Purge == nil {
			return nil // a job left by an instance configured with the hook
		}
		return o.Purge(ctx)
	})
	if o.Purge == nil {
		return nil
	}
	next := o.PurgeNext
	if next == nil {
		next = func(t time.Time) time.Time { return t.Add(24 * time.Hour) }
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(schedule(next),
		func() (river.JobArgs, *river.InsertOpts) { return purgeArgs{}, nil },
		&river.PeriodicJobOpts{ID: purgeKind, RunOnStart: true})}
}
