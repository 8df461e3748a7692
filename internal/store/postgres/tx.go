package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"parley/internal/domain"
	"parley/internal/store"
)

// write runs fn in a transaction and commits when fn returns nil.
//
// The isolation level is READ COMMITTED whatever the server's or the URL's
// default, because the locking in this package depends on it: after a
// transaction waits for a row lock, its next statement sees what the
// previous holder committed. Under REPEATABLE READ the quota check would
// read a usage snapshot from before the wait and over-admit.
func (s *Store) write(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return dbErr(pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, fn))
}

// PostgreSQL error codes the contract gives a meaning to.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
	// A NUL character or invalid UTF-8 in a text value: text columns
	// cannot hold U+0000.
	characterNotInRepertoire = "22021"
	// \u0000 in a JSON string given to jsonb.
	untranslatableCharacter = "22P05"
)

// dbErr turns constraint violations into the domain errors the contract
// promises: a taken unique value is ErrConflict, a reference to a missing
// row (a foreign key) is ErrNotFound. Other errors pass unchanged.
func dbErr(err error) error {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case uniqueViolation:
		return domain.ErrConflict
	case foreignKeyViolation:
		return domain.ErrNotFound
	case characterNotInRepertoire, untranslatableCharacter:
		// The request's fault, so a 400 rather than a 500; the same
		// error the SQLite store gives (store.ErrBadText).
		return store.ErrBadText
	}
	return err
}

// notFound maps pgx.ErrNoRows to want (ErrNotFound, ErrKeyInvalid, ...) and
// the rest through dbErr.
func notFound(err, want error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return want
	}
	return dbErr(err)
}

// lockAccount takes the account's row lock for the rest of tx, so that
// concurrent bounded creations (belowLimit) count one after another;
// domain.ErrNotFound when there is no such account.
func lockAccount(ctx context.Context, tx pgx.Tx, accountID string) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, accountID).Scan(&one)
	return notFound(err, domain.ErrNotFound)
}

// belowLimit returns errLimit when countQuery counts limit rows or more:
// the bounded creations' one check, run in a transaction holding the lock
// that serializes them.
func belowLimit(ctx context.Context, tx pgx.Tx, limit int, errLimit error, countQuery string, args ...any) error {
	var n int
	if err := tx.QueryRow(ctx, countQuery, args...).Scan(&n); err != nil {
		return err
	}
	if n >= limit {
		return errLimit
	}
	return nil
}

// rowTo adapts a row type's scan function to pgx.CollectRows (which gives
// an empty, non-nil slice for no rows).
func rowTo[T any](scan func(pgx.Row) (T, error)) pgx.RowToFunc[T] {
	return func(row pgx.CollectableRow) (T, error) { return scan(row) }
}

// rowsAffected turns "no row changed" into domain.ErrNotFound. Inside a
// transaction the error also rolls back what came before.
func rowsAffected(tag pgconn.CommandTag, err error) error {
	if err != nil {
		return dbErr(err)
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrNotFound
	}
	return nil
}

// ms is t at the precision the store keeps (milliseconds) in UTC. Every time
// is written through it, so what a method returns equals what a later read
// returns (timestamptz itself would keep microseconds), and every time read
// goes through it too, because pgx returns timestamptz in the process's
// local zone and the contract returns UTC.
func ms(t time.Time) time.Time { return store.StoredTime(t) }

// now is the current time at the store's precision.
func now() time.Time { return store.Now() }
