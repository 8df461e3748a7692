package main

import (
	"context"
	"log/slog"
	"time"

	"parley/internal/config"
	"parley/internal/jobs"
	"parley/internal/retention"
)

// jobHooks are the work the queue's job kinds call (jobs.Options). The
// sources service (issue 16) provides them; until it is connected, sync
// jobs fail saying the hook is missing and nothing is scheduled.
type jobHooks struct {
	SyncSource func(ctx context.Context, sourceID string) error
	EnqueueDue func(ctx context.Context) error
	EmbedAgent func(ctx context.Context, accountID, agentID string) error
	// Purge is the retention service's daily purge (retention.Service.Run).
	Purge func(ctx context.Context) error
	// FlushWebhook and SweepWebhooks are the webhooks service's
	// (webhooks.Service.FlushJob, Sweep).
	FlushWebhook  func(ctx context.Context, webhookID string) error
	SweepWebhooks func(ctx context.Context) error
	// SendWaitAlert and SendReplyMail are the offline service's e-mails
	// (offline.Service.SendWaitAlert, SendReply).
	SendWaitAlert func(ctx context.Context, conversationID, userID string) error
	SendReplyMail func(ctx context.Context, conversationID string) error
}

// openJobs opens the background job queue on the store's database (its
// tables are migrated here); serve starts it once the services its hooks
// call exist.
func openJobs(ctx context.Context, cfg config.Config, log *slog.Logger, hooks jobHooks) (*jobs.Queue, error) {
	return jobs.Open(ctx, jobs.Options{
		DB: cfg.DB, Logger: log,
		Workers: cfg.Jobs.Workers, RescueAfter: cfg.Jobs.RescueAfter, StopGrace: cfg.Jobs.StopGrace,
		SyncSource: hooks.SyncSource, EnqueueDue: hooks.EnqueueDue, EmbedAgent: hooks.EmbedAgent,
		Purge: hooks.Purge, PurgeNext: retention.NextPurge,
		FlushWebhook: hooks.FlushWebhook, SweepWebhooks: hooks.SweepWebhooks,
		SendWaitAlert: hooks.SendWaitAlert, SendReplyMail: hooks.SendReplyMail,
	})
}

// stopJobs stops the queue after the HTTP server: running jobs get the
// grace period, then their contexts are cancelled and River queues them
// again for the next instance. The extra time is for those jobs to return
// and record that.
func stopJobs(q *jobs.Queue, cfg config.Config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Jobs.StopGrace+15*time.Second)
	defer cancel()
	if err := q.Stop(ctx); err != nil {
		log.Error("stopping the job queue", "err", err)
	}
}
