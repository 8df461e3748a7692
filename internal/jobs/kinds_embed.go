package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Embed: the passages of one agent that have no vector yet are embedded
// (docs/agent.md, "Hybrid retrieval"). The backend may be down for a
// while: five tries over about an hour, then the agent's chats, which
// find vectors missing, queue it again (agent.Hybrid.Sweep). Meanwhile
// retrieval is lexical, so nothing waits for it.
const embedKind = "agent_embed"

func embedSpec(o Options) spec {
	return spec{attempts: 5, timeout: o.EmbedTimeout, backoff: []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 45 * time.Minute}}
}

type embedArgs struct {
	AccountID string `json:"account_id"`
	AgentID   string `json:"agent_id" river:"unique"`
}

func (embedArgs) Kind() string { return embedKind }

// InsertOpts makes an embedding unique per agent while it waits (queued,
// due or retrying) or runs (River requires "running" among the states);
// knowledge changed during a run is embedded by that run, which looks
// again when it ends (agent.Hybrid.EmbedAgent).
func (embedArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: embedSpec(Options{}).attempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled,
		}},
	}
}

// EnqueueEmbed queues an embedding of the agent's passages; while one is
// already waiting this does nothing.
func (q *Queue) EnqueueEmbed(ctx context.Context, accountID, agentID string) error {
	if agentID == "" || accountID == "" {
		return errors.New("jobs: embedding of an empty agent id")
	}
	if _, err := q.client.Insert(ctx, embedArgs{AccountID: accountID, AgentID: agentID}, nil); err != nil {
		return fmt.Errorf("jobs: enqueue embedding of %s: %w", agentID, err)
	}
	return nil
}
