package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
)

// Group commit. With synchronous=FULL every commit waits for the disk, and
// one connection commits one transaction at a time, so writes one by one
// are bounded by fsyncs per second. The committer runs the writes that
// arrive together in one transaction — each inside its own savepoint, so a
// failing write is rolled back alone — and commits once: many writes per
// fsync, and still nothing is acknowledged before it is on disk.

// maxBatch bounds one group; more waiting writes go into the next.
const maxBatch = 256

type writeReq struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	done chan error
}

// errClosed is returned by writes after Close.
var errClosed = errors.New("sqlite: store is closed")

// committer is the one goroutine that owns write transactions.
func (s *Store) committer() {
	defer close(s.committerDone)
	for first := range s.writes {
		batch := []writeReq{first}
		open := s.gather(&batch)
		// Under load the requests that will write next are often running
		// right now: yielding to them a few times before the batch starts
		// lets their writes join it. Larger batches mean fewer commits, and
		// each commit writes the same hot pages (the conversations', the
		// sequence's) and waits for one fsync. It stops as soon as a yield
		// brings nothing, so a lone write waits for no one.
		for yields := 0; open && yields < gatherYields && len(batch) < maxBatch; yields++ {
			n := len(batch)
			runtime.Gosched()
			open = s.gather(&batch)
			if len(batch) == n {
				break
			}
		}
		s.commitBatch(batch)
	}
}

// gatherYields bounds how many times the committer lets other goroutines
// run before it starts a batch, taking the writes they queue meanwhile.
const gatherYields = 6

// gather appends the writes already queued; false once writes is closed.
func (s *Store) gather(batch *[]writeReq) bool {
	for len(*batch) < maxBatch {
		select {
		case req, ok := <-s.writes:
			if !ok {
				return false
			}
			*batch = append(*batch, req)
		default:
			return true
		}
	}
	return true
}

func (s *Store) commitBatch(batch []writeReq) {
	results := make([]error, len(batch))
	ctx := context.Background()
	conn, err := s.w.Conn(ctx)
	var tx *sql.Tx
	if err == nil {
		if tx, err = conn.BeginTx(ctx, nil); err != nil {
			conn.Close()
		}
	}
	if err != nil {
		for _, req := range batch {
			req.done <- err
		}
		return
	}
	s.batch = batchTx{tx: tx}
	defer func() {
		s.batch = batchTx{}
		conn.Close() // back to the pool: the transaction has ended
		for i, req := range batch {
			req.done <- results[i]
		}
	}()
	for i, req := range batch {
		if err := req.ctx.Err(); err != nil {
			results[i] = err // the caller gave up before its turn: do nothing
			continue
		}
		results[i] = s.inSavepoint(tx, req)
	}
	err = tx.Commit()
	s.nudgeCheckpointer()
	s.nudgeIndexer()
	// Before any writer hears back: a read after a write returned must
	// find the caches as the write left them.
	s.cache.apply(err == nil)
	if err != nil {
		// Nothing of the batch is on disk: every write failed.
		for i := range results {
			if results[i] == nil {
				results[i] = err
			}
		}
	}
}

// inSavepoint runs one write so that its failure (or panic) undoes only
// its own changes and never stops the committer.
func (s *Store) inSavepoint(tx *sql.Tx, req writeReq) (err error) {
	exec := func(h hot) error {
		_, err := s.execHot(h)
		return err
	}
	if err := exec(hotSavepoint); err != nil {
		return err
	}
	// What the write records for the caches (cache.go) goes with it when
	// it is undone; when it may not have been, everything cached is
	// forgotten, which is always safe.
	mark := s.cache.mark()
	undo := func() error {
		rbErr := exec(hotRollbackTo)
		if rbErr == nil {
			s.cache.undo(mark)
		} else {
			s.invalidate(cacheEvent{what: forgetEverything})
		}
		exec(hotRelease)
		return rbErr
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("sqlite: write panicked: %v", v)
			undo()
		}
	}()
	if err := req.fn(tx); err != nil {
		if rbErr := undo(); rbErr != nil {
			return errors.Join(err, rbErr)
		}
		return err
	}
	if err := exec(hotRelease); err != nil {
		s.invalidate(cacheEvent{what: forgetEverything})
		return err
	}
	return nil
}
