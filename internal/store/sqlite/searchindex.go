package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// The search index's indexer (migration 0021): the messages above
// message_search_state.indexed_seq go into the FTS5 index in batches, off
// the chat's path. Like the checkpointer it is the store's own upkeep, and
// nothing is lost when it stops: the mark is in the database, and the
// search reads the messages above it directly (search.go), so a message is
// found from the moment it is stored.

// indexEvery is how long the indexer waits after a commit before it
// indexes what came: under load a batch then holds a second's messages.
// The search reads about that many messages past the mark.
const indexEvery = time.Second

// indexBatch is the most messages one indexing write takes: the write
// holds the writer, and the chats queued behind it wait. 500 rather than
// 2,000 lowered the chat's p99 under load at about the same CPU
// (docs/benchmarks.md). A first run after the upgrade works through a
// large table in turns of it.
const indexBatch = 500

// indexer indexes the new messages after commits, at most every
// indexEvery, until stop is closed.
func (s *Store) indexer(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		case <-s.toIndex:
		}
		select {
		case <-stop:
			return
		case <-time.After(indexEvery):
		}
		for {
			// An error (a full disk, say) leaves the messages where they
			// are: found by the search all the same, indexed on a later
			// commit's turn.
			more, err := s.indexBatch(context.Background())
			if err != nil || !more {
				break
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}
}

// nudgeIndexer tells the indexer messages may have come; it never blocks
// the committer.
func (s *Store) nudgeIndexer() {
	select {
	case s.toIndex <- struct{}{}:
	default:
	}
}

// stopIndexer stops the indexer and waits for it; its current batch is
// written first. Close calls it; a test may call it earlier.
func (s *Store) stopIndexer() {
	s.stopIndexOnce.Do(func() { close(s.stopIndex) })
	<-s.indexDone
}

// indexPending indexes every message there is, a batch at a time.
func (s *Store) indexPending(ctx context.Context) error {
	for {
		more, err := s.indexBatch(ctx)
		if err != nil || !more {
			return err
		}
	}
}

// indexMark reads the index's mark and the newest message's seq.
const indexMark = `SELECT indexed_seq, (SELECT coalesce(max(seq), 0) FROM messages) FROM message_search_state`

// indexBatch indexes up to indexBatch messages above the mark and moves
// it, in one write; more tells whether messages are left.
func (s *Store) indexBatch(ctx context.Context) (more bool, err error) {
	var mark, top int64
	// A look from the read pool first: with nothing to index there is no
	// write, and no commit to wait for.
	if err := s.queryRow(ctx, indexMark).Scan(&mark, &top); err != nil || mark >= top {
		return false, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		ctx := inWrite(ctx)
		if err := tx.QueryRowContext(ctx, indexMark).Scan(&mark, &top); err != nil {
			return err
		}
		// Seqs only grow, and the writer is this transaction's alone: every
		// message up to top is here, and a new one comes above it.
		upto := min(top, mark+indexBatch)
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages_search (rowid, text_folded)
			SELECT seq, text_folded FROM messages WHERE seq > ? AND seq <= ?`, mark, upto); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE message_search_state SET indexed_seq = ?`, upto)
		more = upto < top
		return err
	})
	return more, err
}
