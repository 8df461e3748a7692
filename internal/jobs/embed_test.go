package jobs

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// embedJobs lists the embedding jobs of an agent, in every state.
func embedJobs(t *testing.T, q *Queue, agentID string) []*rivertype.JobRow {
	t.Helper()
	res, err := q.client.JobList(context.Background(), river.NewJobListParams().Kinds(embedKind).First(1000))
	if err != nil {
		t.Fatal(err)
	}
	var out []*rivertype.JobRow
	for _, j := range res.Jobs {
		if strings.Contains(string(j.EncodedArgs), `"`+agentID+`"`) {
			out = append(out, j)
		}
	}
	return out
}

// TestEmbedOncePerAgentAndRetried: enqueues of an agent while its
// embedding waits add nothing; the hook gets the agent's account; a
// failure is retried (on the kind's backoff, made due here at once).
func TestEmbedOncePerAgentAndRetried(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		var mu sync.Mutex
		var calls []string
		fail := true
		hook := func(_ context.Context, accountID, agentID string) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, accountID+"/"+agentID)
			if fail {
				fail = false
				return errors.New("backend down")
			}
			return nil
		}
		q := openQueue(t, Options{DB: db, EmbedAgent: hook})
		ctx := t.Context()
		for range 3 {
			if err := q.EnqueueEmbed(ctx, "acc_1", "ag_1"); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.EnqueueEmbed(ctx, "acc_1", "ag_2"); err != nil {
			t.Fatal(err)
		}
		if n := len(embedJobs(t, q, "ag_1")); n != 1 {
			t.Fatalf("%d jobs after three enqueues, want 1", n)
		}
		if err := q.EnqueueEmbed(ctx, "", "ag_1"); err == nil {
			t.Fatal("EnqueueEmbed without an account: no error")
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a retryable or finished job", func() bool {
			js := embedJobs(t, q, "ag_1")
			mu.Lock()
			defer mu.Unlock()
			return len(js) == 1 && len(calls) >= 2
		})
		// The failed job waits for its retry: make it due now.
		var first *rivertype.JobRow
		waitFor(t, "one of the jobs to wait for a retry", func() bool {
			for _, id := range []string{"ag_1", "ag_2"} {
				if js := embedJobs(t, q, id); len(js) == 1 && js[0].State == rivertype.JobStateRetryable {
					first = js[0]
					return true
				}
			}
			return false
		})
		if _, err := q.client.JobRetry(ctx, first.ID); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"ag_1", "ag_2"} {
			waitFor(t, id+" to complete", func() bool {
				js := embedJobs(t, q, id)
				return len(js) == 1 && js[0].State == rivertype.JobStateCompleted
			})
		}
		mu.Lock()
		defer mu.Unlock()
		if len(calls) != 3 || !strings.HasPrefix(calls[0], "acc_1/ag_") {
			t.Fatalf("hook calls %v, want three (one retried)", calls)
		}
	})
}
