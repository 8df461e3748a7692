package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Webhook flush: send an endpoint's pending deliveries, oldest first
// (webhooks.Service.Flush). One flush per endpoint is queued or running
// at a time (unique by endpoint), which is what keeps an endpoint's events
// in order whichever instance runs it. The delivery's own backoff (about
// 24 hours of retries, docs/api.md "Webhooks") is kept in the store, per
// delivery; the flush waits it out by snoozing (Snooze), so River's
// attempt count only counts crashes and timeouts.
const webhookKind = "webhook_flush"

// DefaultWebhookTimeout bounds one flush: it sends deliveries one after
// another, each with its own request timeout (webhooks.DefaultTimeout),
// and stops after a batch, queueing itself again.
const DefaultWebhookTimeout = 5 * time.Minute

func webhookSpec(o Options) spec {
	return spec{attempts: 10, timeout: o.WebhookTimeout, backoff: []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute}}
}

type webhookArgs struct {
	WebhookID string `json:"webhook_id" river:"unique"`
}

func (webhookArgs) Kind() string { return webhookKind }

// InsertOpts: unique per endpoint while it waits, is due, snoozes or
// retries, or runs. An event added while a flush runs is sent by that
// flush (it reads the next pending delivery until none is left); the rare
// one added after its last read is found by the sweep (webhookSweepKind).
func (webhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: webhookSpec(Options{}).attempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled,
		}},
	}
}

// EnqueueWebhook queues a flush of the endpoint's pending deliveries;
// while one is already waiting this does nothing.
func (q *Queue) EnqueueWebhook(ctx context.Context, webhookID string) error {
	if webhookID == "" {
		return errors.New("jobs: webhook flush of an empty endpoint id")
	}
	if _, err := q.client.Insert(ctx, webhookArgs{WebhookID: webhookID}, nil); err != nil {
		return fmt.Errorf("jobs: enqueue webhook flush of %s: %w", webhookID, err)
	}
	return nil
}

// Webhook sweep: queue a flush for every endpoint with a delivery pending
// for a while (webhooks.Service.Sweep), periodic on the leader.
const webhookSweepKind = "webhook_sweep"

// DefaultWebhookSweepEvery is the sweep's period.
const DefaultWebhookSweepEvery = time.Minute

func webhookSweepSpec(o Options) spec {
	return spec{attempts: 1, timeout: max(o.WebhookSweepEvery, time.Minute)}
}

type webhookSweepArgs struct{}

func (webhookSweepArgs) Kind() string { return webhookSweepKind }

func (webhookSweepArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: webhookSweepSpec(Options{}).attempts}
}

// Snooze ends a job's run without counting it as a failure and runs it
// again after d.
func Snooze(d time.Duration) error { return river.JobSnooze(d) }

func registerWebhooks(o Options, w *river.Workers) []*river.PeriodicJob {
	addKind(w, webhookSpec(o), func(ctx context.Context, a webhookArgs) error {
		if o.FlushWebhook == nil {
			return Permanent(errors.New("no FlushWebhook hook is configured on this instance (jobs.Options.FlushWebhook)"))
		}
		return o.FlushWebhook(ctx, a.WebhookID)
	})
	addKind(w, webhookSweepSpec(o), func(ctx context.Context, _ webhookSweepArgs) error {
		if o.SweepWebhooks == nil {
			return nil
		}
		return o.SweepWebhooks(ctx)
	})
	if o.SweepWebhooks == nil {
		return nil
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(o.WebhookSweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return webhookSweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: webhookSweepKind, RunOnStart: true})}
}
