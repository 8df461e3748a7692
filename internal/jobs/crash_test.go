package jobs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// childDB, set in a child process's environment, makes the test binary an
// instance of its own that syncs one source and never finishes: the
// instance TestDeadInstanceJobRunsAgain kills.
const childDB = "PARLEY_JOBS_TEST_CHILD_DB"

func TestMain(m *testing.M) {
	if db := os.Getenv(childDB); db != "" {
		runChild(db)
		return
	}
	os.Exit(m.Run())
}

func runChild(db string) {
	ctx := context.Background()
	stuck := make(chan struct{}) // never closed: the sync is still running when the process dies
	q, err := Open(ctx, fast(Options{DB: db, Workers: 1, SyncSource: func(_ context.Context, id string) error {
		fmt.Printf("running %s\n", id)
		<-stuck
		return nil
	}}))
	if err == nil {
		err = q.Start(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	<-stuck
}

// TestDeadInstanceJobRunsAgain: an instance (a child process) dies with
// SIGKILL while its sync runs, leaving the job marked running; another
// instance rescues it once the rescue delay has passed and runs it again.
func TestDeadInstanceJobRunsAgain(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, db string) {
		const rescueAfter = 100 * time.Millisecond
		rec := newRecorder(false)
		q := openQueue(t, Options{DB: db, SyncSource: rec.SyncSource, SyncTimeout: rescueAfter / 2, RescueAfter: rescueAfter})
		if err := q.EnqueueSync(t.Context(), "src_a"); err != nil {
			t.Fatal(err)
		}

		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), childDB+"="+db)
		var stderr bytes.Buffer
		child.Stderr = &stderr
		out, err := child.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		t.Cleanup(func() {
			if !killed {
				child.Process.Kill()
				child.Wait()
			}
		})
		started := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(out).ReadString('\n')
			started <- strings.TrimSpace(line)
		}()
		select {
		case line := <-started:
			if line != "running src_a" {
				t.Fatalf("child said %q; its stderr: %s", line, stderr.String())
			}
		case <-time.After(45 * time.Second):
			t.Fatalf("the child instance never ran the sync; its stderr: %s", stderr.String())
		}
		child.Process.Kill()
		child.Wait()
		killed = true
		if s := jobState(t, q, "src_a"); s != rivertype.JobStateRunning {
			t.Fatalf("after the kill the job is %s, want running", s)
		}
		// The dead instance was the leader: its lease would run out by
		// itself within River's leader TTL (~15 s); end it now so this
		// instance leads, and rescues, at once.
		rawExec(t, db, `DELETE FROM river_leader`)
		waitFor(t, "the job to be older than the rescue delay", func() bool {
			j := syncJobs(t, q, "src_a")[0]
			return j.AttemptedAt != nil && time.Since(*j.AttemptedAt) > 2*rescueAfter
		})

		if err := q.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the rescued sync to run again", func() bool { return jobState(t, q, "src_a") == rivertype.JobStateCompleted })
		if n := rec.count("src_a"); n != 1 {
			t.Errorf("the live instance synced src_a %d times, want 1", n)
		}
		j := syncJobs(t, q, "src_a")[0]
		if j.Attempt != 2 || len(j.Errors) != 1 || !strings.Contains(j.Errors[0].Error, "rescued") {
			t.Errorf("attempt %d, errors %+v: want the second attempt after a rescue", j.Attempt, j.Errors)
		}
	})
}
