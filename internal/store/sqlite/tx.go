package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"parley/internal/domain"
	"parley/internal/store"
)

// write runs fn in a write transaction, atomically: when it returns nil,
// fn's changes are committed and on disk; when fn fails, none of them are.
// Writes that arrive together share one commit (see commit.go). Inside fn
// use only tx: the writer has one connection, so touching s.w directly
// there would wait for itself forever.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	req := writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	s.closing.RLock()
	if s.closed {
		s.closing.RUnlock()
		return errClosed
	}
	select {
	case s.writes <- req:
	case <-ctx.Done():
		s.closing.RUnlock()
		return ctx.Err()
	}
	s.closing.RUnlock()
	// Once queued, wait for the outcome even if ctx ends: the write may
	// already be committed, and the caller must not think otherwise.
	return <-req.done
}

// inWrite is the context for the statements of a queued write. The
// committer starts a write only while its caller still waits, and then
// finishes it even if the caller leaves (see write). Without a Done channel
// the driver also skips the goroutine it starts per statement to watch for
// a cancellation, on the committer's path that every write shares.
func inWrite(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface {
	Scan(dest ...any) error
}

// belowLimit returns errLimit when countQuery, run in the write's
// transaction (so concurrent inserts count one after another), counts
// limit rows or more: the bounded creations' one check.
func belowLimit(ctx context.Context, tx *sql.Tx, limit int, errLimit error, countQuery string, args ...any) error {
	var n int
	if err := tx.QueryRowContext(ctx, countQuery, args...).Scan(&n); err != nil {
		return err
	}
	if n >= limit {
		return errLimit
	}
	return nil
}

// queryAll runs a query on s and reads every row with scan (the row
// type's one scan function): the list methods' one loop. No rows is an
// empty slice, not nil, so a list encodes as [] rather than null.
func queryAll[T any](ctx context.Context, s *Store, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// constraintErr turns constraint violations into the domain errors the
// contract promises: a taken unique value is ErrConflict, a reference to a
// missing row (a foreign key) is ErrNotFound. Other errors pass unchanged.
func constraintErr(err error) error {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return domain.ErrConflict
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return domain.ErrNotFound
	}
	return err
}

// notFound maps sql.ErrNoRows to want (ErrNotFound, ErrKeyInvalid, ...).
func notFound(err, want error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return want
	}
	return err
}

// Times are stored as unix milliseconds: they sort as integers and read back
// in UTC whatever the zone of the process.
func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// now is the current time at the precision the store keeps, so what a
// method returns equals what a later read returns.
func now() time.Time { return store.Now() }
