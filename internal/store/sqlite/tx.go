package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"parley/internal/domain"
)

// write runs fn in a transaction on the writer and commits when fn returns
// nil. Inside fn use only tx: the writer has one connection, so touching
// s.w directly there would wait for itself forever.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface {
	Scan(dest ...any) error
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
func now() time.Time { return fromMillis(time.Now().UnixMilli()) }
