package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// E-mail (issue 19, internal/offline): two kinds, each sending one
// message through PARLEY_SMTP_URL. A failed send (the server down, a
// greylisting 4xx) is retried five times over about an hour and a half;
// the hook checks on each run whether the mail is still wanted, so a
// retry after the conversation moved on sends nothing.
//
// Wait alert: scheduled when a conversation starts waiting for a human,
// for each operator who asked for one, at the minutes they chose; on run
// it mails the operator only if the conversation still waits.
const waitAlertKind = "mail_wait_alert"

// Reply mail: scheduled when an operator replies to a visitor who left an
// address and is not connected; on run it mails the visitor the
// conversation's transcript, unless they came back meanwhile. Unique per
// conversation while scheduled or waiting, so a burst of replies is one
// mail.
const replyMailKind = "mail_reply"

// DefaultMailTimeout bounds one send (the SMTP client's own timeout is
// 30 seconds per step).
const DefaultMailTimeout = 2 * time.Minute

func mailSpec() spec {
	return spec{attempts: 6, timeout: DefaultMailTimeout,
		backoff: []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour}}
}

type waitAlertArgs struct {
	ConversationID string `json:"conversation_id" river:"unique"`
	UserID         string `json:"user_id" river:"unique"`
}

func (waitAlertArgs) Kind() string { return waitAlertKind }

// InsertOpts: one alert per conversation and operator while it is
// scheduled or pending (a conversation that starts waiting again before
// the first alert ran is still one alert).
func (waitAlertArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: mailSpec().attempts, UniqueOpts: mailUnique}
}

type replyMailArgs struct {
	ConversationID string `json:"conversation_id" river:"unique"`
}

func (replyMailArgs) Kind() string { return replyMailKind }

func (replyMailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: mailSpec().attempts, UniqueOpts: mailUnique}
}

// mailUnique: unique while waiting to run; a running or retrying mail
// does not block the next one (it may be about an older state).
var mailUnique = river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateScheduled,
	rivertype.JobStateRunning, rivertype.JobStateRetryable,
}}

func registerMail(o Options, w *river.Workers) {
	addKind(w, mailSpec(), func(ctx context.Context, a waitAlertArgs) error {
		if o.SendWaitAlert == nil {
			return Permanent(errors.New("no SendWaitAlert hook is configured on this instance (jobs.Options.SendWaitAlert)"))
		}
		return o.SendWaitAlert(ctx, a.ConversationID, a.UserID)
	})
	addKind(w, mailSpec(), func(ctx context.Context, a replyMailArgs) error {
		if o.SendReplyMail == nil {
			return Permanent(errors.New("no SendReplyMail hook is configured on this instance (jobs.Options.SendReplyMail)"))
		}
		return o.SendReplyMail(ctx, a.ConversationID)
	})
}

// EnqueueWaitAlert schedules an operator's alert about a waiting
// conversation at at.
func (q *Queue) EnqueueWaitAlert(ctx context.Context, conversationID, userID string, at time.Time) error {
	if conversationID == "" || userID == "" {
		return errors.New("jobs: wait alert without a conversation or user")
	}
	opts := waitAlertArgs{}.InsertOpts()
	opts.ScheduledAt = at
	if _, err := q.client.Insert(ctx, waitAlertArgs{ConversationID: conversationID, UserID: userID}, &opts); err != nil {
		return fmt.Errorf("jobs: enqueue wait alert of %s: %w", conversationID, err)
	}
	return nil
}

// EnqueueReplyMail schedules the mail of a conversation's transcript to
// its visitor at at; while one is waiting this does nothing.
func (q *Queue) EnqueueReplyMail(ctx context.Context, conversationID string, at time.Time) error {
	if conversationID == "" {
		return errors.New("jobs: reply mail without a conversation")
	}
	opts := replyMailArgs{}.InsertOpts()
	opts.ScheduledAt = at
	if _, err := q.client.Insert(ctx, replyMailArgs{ConversationID: conversationID}, &opts); err != nil {
		return fmt.Errorf("jobs: enqueue reply mail of %s: %w", conversationID, err)
	}
	return nil
}
