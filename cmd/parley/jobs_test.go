package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// serve migrates the job queue's tables, starts the queue (an instance is
// elected leader: River's row in river_leader) and stops it on shutdown
// (the leader resigns: the row goes), on both stores.
func TestServeRunsTheJobQueue(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "parley.db")
		leaders := func() int {
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM river_leader`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		checkQueueLifecycle(t, path, leaders)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		url := postgresURL(t)
		leaders := func() int {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var n int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM river_leader`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		checkQueueLifecycle(t, url, leaders)
	})
}

func checkQueueLifecycle(t *testing.T, db string, leaders func() int) {
	inst := start(t, db, map[string]string{"PARLEY_DEMO": "false"})
	for deadline := time.Now().Add(30 * time.Second); leaders() != 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no job queue leader after the start")
		}
	}
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}
	if n := leaders(); n != 0 {
		t.Errorf("%d leaders after shutdown: the queue did not stop", n)
	}
}
