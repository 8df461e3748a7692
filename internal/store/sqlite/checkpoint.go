package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// Checkpoints — copying the WAL's pages back into the database file, and
// syncing it — run on a connection of their own, not on the writer. By
// default SQLite has the connection that commits run one whenever the WAL
// passes 1,000 pages: under a steady load that is several times a second,
// each copying megabytes and waiting for a sync of the database file while
// every queued write waits behind it. A PASSIVE checkpoint on another
// connection runs beside the writer instead (it never takes the write
// lock), and the writer keeps its own automatic checkpoint only as a
// backstop, at ten times the usual size, should these ever fall behind.
// Durability is unchanged: a commit is on disk once the WAL is synced, and
// a checkpoint syncs the WAL before copying and the file after.

// checkpointEvery is the most often a checkpoint runs: under load, the WAL
// holds a few megabytes between two.
const checkpointEvery = 100 * time.Millisecond

// writerAutoCheckpoint is the backstop, in pages.
const writerAutoCheckpoint = 10_000

// checkpointer runs a PASSIVE checkpoint after commits, at most every
// checkpointEvery, until stop is closed.
func (s *Store) checkpointer(db *sql.DB, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		case <-s.committed:
		}
		// An error (the database busy with another checkpoint, say) only
		// means this one is skipped: the next commit asks again.
		db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		select {
		case <-stop:
			return
		case <-time.After(checkpointEvery):
		}
	}
}

// nudgeCheckpointer tells the checkpointer the WAL has grown; it never
// blocks the committer.
func (s *Store) nudgeCheckpointer() {
	select {
	case s.committed <- struct{}{}:
	default:
	}
}
