// Package sqlite is the SQLite implementation of store.Store, built on the
// pure-Go driver modernc.org/sqlite so the binary needs no cgo.
//
// One file holds everything. Writes go through a single connection, which
// serializes them in the process: a read-modify-write transaction (the quota
// check in CreateConversation, the mode check in AddMessage) can never
// interleave with another write. Plain reads use a small pool of read-only
// connections, which WAL lets run beside the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"parley/internal/store"
)

// readers is the size of the read pool. Reads are short; a few connections
// keep the inbox and the widget responsive while a write is in progress.
const readers = 4

// Store is a store.Store backed by one SQLite file.
type Store struct {
	w     *sql.DB    // exactly one connection: every write goes here
	r     *sql.DB    // read-only pool for plain reads
	reads stmtCache  // prepared statements on r
	ws    writeStmts // prepared statements on w, for the hot writes' reads
	hot   hotStmts   // the hot writes, prepared on w (hotwrites.go)
	cache caches     // the cache layer (cache.go)
	// The current batch (hotwrites.go); only the committer touches it.
	batch batchTx

	writes        chan writeReq // to the committer
	committerDone chan struct{}

	cp             *sql.DB       // the checkpointer's connection (checkpoint.go)
	committed      chan struct{} // the committer nudges the checkpointer
	stopCheckpoint chan struct{}
	checkpointDone chan struct{}
	closing        sync.RWMutex // guards closed against sends on writes
	closed         bool

	// smallList is the most conversations a list may hold for its search
	// to read all their messages instead of the index (search.go); a test
	// sets 0 to take the index always.
	smallList int
	// The search index's indexer (searchindex.go).
	toIndex       chan struct{} // the committer nudges it
	stopIndex     chan struct{}
	stopIndexOnce sync.Once
	indexDone     chan struct{}
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it if needed) the database at path, applies pending
// migrations and returns a ready store. path is a file path, optionally
// prefixed with "sqlite:"; missing parent directories are created.
func Open(ctx context.Context, path string) (*Store, error) {
	path = strings.TrimPrefix(path, "sqlite:")
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	// Owner-only: the file holds password and token hashes.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sqlite: create directory: %w", err)
	}

	// BEGIN IMMEDIATE takes the write lock when a transaction starts, so a
	// transaction that reads and then writes cannot fail halfway with
	// SQLITE_BUSY if another process holds the file.
	w, err := sql.Open("sqlite", dsn(path, "_txlock=immediate",
		fmt.Sprintf("_pragma=wal_autocheckpoint(%d)", writerAutoCheckpoint)))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// Migrate before the readers exist so they never see a half-built schema.
	if err := migrate(ctx, w, migrationFiles()); err != nil {
		w.Close()
		return nil, err
	}

	s := &Store{
		w: w, writes: make(chan writeReq, maxBatch), committerDone: make(chan struct{}),
		cache: newCaches(), smallList: store.ShortSearchWindow,
	}
	if err := s.ws.prepare(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: prepare: %w", err)
	}
	if err := s.hot.prepare(ctx, w); err != nil {
		s.ws.close()
		w.Close()
		return nil, fmt.Errorf("sqlite: prepare: %w", err)
	}

	// query_only makes an accidental write through the read pool fail
	// instead of racing the writer for the lock.
	r, err := sql.Open("sqlite", dsn(path, "_pragma=query_only(1)"))
	if err != nil {
		s.hot.close()
		s.ws.close()
		w.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	if err := r.PingContext(ctx); err != nil {
		s.hot.close()
		s.ws.close()
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.r = r
	cp, err := sql.Open("sqlite", dsn(path))
	if err == nil {
		cp.SetMaxOpenConns(1)
		err = cp.PingContext(ctx)
	}
	if err != nil {
		s.hot.close()
		s.ws.close()
		w.Close()
		r.Close()
		if cp != nil {
			cp.Close()
		}
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.cp, s.committed = cp, make(chan struct{}, 1)
	s.stopCheckpoint, s.checkpointDone = make(chan struct{}), make(chan struct{})
	go s.checkpointer(cp, s.stopCheckpoint, s.checkpointDone)
	go s.committer()
	s.toIndex, s.stopIndex, s.indexDone = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go s.indexer(s.stopIndex, s.indexDone)
	s.nudgeIndexer() // what an older version stored, or a crash left
	return s, nil
}

// dsn builds a modernc.org/sqlite data source name. The driver runs each
// _pragma on every new connection, so settings that are per connection
// (busy_timeout, foreign_keys, synchronous) hold for the whole pool.
// synchronous=FULL syncs the WAL on every commit: a method that returned has
// its data on disk, even across a power loss.
func dsn(path string, extra ...string) string {
	params := []string{
		"_pragma=busy_timeout(10000)",
		"_pragma=foreign_keys(1)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(FULL)",
	}
	params = append(params, extra...)
	return "file:" + uriPath(path) + "?" + strings.Join(params, "&")
}

// uriPath escapes the characters that would end the path part of an SQLite
// URI filename; SQLite decodes %XX escapes back.
func uriPath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(p))
}

// Ping checks that both handles reach the database.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.w.PingContext(ctx); err != nil {
		return err
	}
	return s.r.PingContext(ctx)
}

// Close finishes the queued writes and closes both handles.
func (s *Store) Close() error {
	// First, while the committer still takes its write.
	s.stopIndexer()
	s.closing.Lock()
	if !s.closed {
		s.closed = true
		close(s.writes)
		close(s.stopCheckpoint)
	}
	s.closing.Unlock()
	<-s.committerDone
	<-s.checkpointDone
	s.reads.close()
	return errors.Join(s.hot.close(), s.ws.close(), s.r.Close(), s.cp.Close(), s.w.Close())
}
