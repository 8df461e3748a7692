package sqlite

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openWALVFS opens path as the writer does: through walVFS.
func openWALVFS(t *testing.T, path string, extra ...string) *sql.DB {
	t.Helper()
	if err := registerWALVFS(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path, append([]string{"vfs=" + walVFSName}, extra...)...))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// openPlain opens path through SQLite's default VFS.
func openPlain(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A commit of many pages reaches the file in one write call, not two per
// page.
//
// Not parallel: walVFS's counters are the process's, and other tests'
// writes would land in the difference. A test that is not parallel runs
// while no parallel one does.
func TestWALVFSGathersACommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	db := openWALVFS(t, path)
	execAll(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)

	asked, wrote := walVFS.asked.Load(), walVFS.wrote.Load()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// 20 rows of 1,500 bytes: about 8 pages, well under walWriteMax.
	for i := range 20 {
		if _, err := tx.Exec(`INSERT INTO t (id, body) VALUES (?, ?)`, i, strings.Repeat("x", 1500)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	asked, wrote = walVFS.asked.Load()-asked, walVFS.wrote.Load()-wrote
	if asked < 10 {
		t.Fatalf("SQLite asked for %d writes: the commit is too small to show anything", asked)
	}
	if wrote != 1 {
		t.Fatalf("SQLite asked for %d writes, and %d reached the file; want 1", asked, wrote)
	}
	var n int
	if err := openPlain(t, path).QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil || n != 20 {
		t.Fatalf("another connection counts %d rows (%v), want 20", n, err)
	}
}

// A transaction larger than the cache spills pages to the WAL before it
// commits, reads them back and writes some of them again in place. One
// that fits in the cache writes them all at its commit: some 6 MB, more
// than walBufferMax and walWriteMax, so in pieces. Either must read back
// the same, through walVFS and after reopening without it.
func TestWALVFSLargeTransactions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, cache string }{
		{"spilling a small cache", "_pragma=cache_size(8)"},
		{"all at the commit", "_pragma=cache_size(-65536)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w.db")
			db := openWALVFS(t, path, tc.cache)
			largeTransaction(t, db)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			checkLargeTransaction(t, openPlain(t, path), "reopened without walVFS")
		})
	}
}

const largeRows = 3000 // about 3 MB of rows, and an index as large

func largeTransaction(t *testing.T, db *sql.DB) {
	t.Helper()
	execAll(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`, `CREATE INDEX t_body ON t (body)`)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range largeRows {
		if _, err := tx.Exec(`INSERT INTO t (id, body) VALUES (?, ?)`, i, fmt.Sprintf("%04d%s", (i*7919)%largeRows, strings.Repeat("y", 1000))); err != nil {
			t.Fatal(err)
		}
	}
	// Change every row again: pages already spilled are rewritten.
	if _, err := tx.Exec(`UPDATE t SET body = substr(body, 1, 4) || 'z' || substr(body, 6)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	checkLargeTransaction(t, db, "through walVFS")
}

func checkLargeTransaction(t *testing.T, db *sql.DB, who string) {
	t.Helper()
	var n, z int
	var ok string
	if err := db.QueryRow(`SELECT count(*), sum(substr(body, 5, 1) = 'z') FROM t`).Scan(&n, &z); err != nil || n != largeRows || z != largeRows {
		t.Fatalf("%s: %d rows, %d changed (%v); want %d", who, n, z, err, largeRows)
	}
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("%s: integrity_check = %q (%v)", who, ok, err)
	}
}

// A commit that returned is on disk even if the process dies right after:
// the gathered writes reach the file before the sync, not later. The
// child commits, says so, and is killed; the row must be there.
func TestWALVFSCommitSurvivesKill(t *testing.T) {
	t.Parallel()
	if path := os.Getenv("PARLEY_WALVFS_CHILD"); path != "" {
		db := openWALVFS(t, path)
		execAll(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
		if _, err := db.Exec(`INSERT INTO t (id, body) VALUES (1, ?)`, strings.Repeat("k", 5000)); err != nil {
			t.Fatal(err)
		}
		fmt.Println("committed")
		time.Sleep(time.Minute) // killed long before
		return
	}
	path := filepath.Join(t.TempDir(), "w.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWALVFSCommitSurvivesKill$")
	cmd.Env = append(os.Environ(), "PARLEY_WALVFS_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if err != nil || line != "committed\n" {
		t.Fatalf("child said %q (%v)", line, err)
	}

	var n int
	if err := openPlain(t, path).QueryRow(`SELECT length(body) FROM t WHERE id = 1`).Scan(&n); err != nil || n != 5000 {
		t.Fatalf("after the kill: length %d (%v), want the committed row", n, err)
	}
}
