// Package postgres is the PostgreSQL implementation of store.Store, built on
// pgx/v5 and its connection pool.
//
// Several Parley instances may share one database, so nothing here relies
// on being the only writer the way the SQLite store does. Every
// read-modify-write (quota admission, a conditional message, deleting an
// owner) runs in a READ COMMITTED transaction that first locks the row the
// decision depends on; the check and the write are then exact across
// instances. Single-statement changes (SetMode, SetWaiting, TakeOver) are
// conditional UPDATEs, which PostgreSQL applies atomically.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"parley/internal/store"
)

// Store is a store.Store backed by a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	// searchWalk and walkChunk are the search's walk and its queries'
	// size (search.go); a test sets them to take one way alone, or to
	// walk in many chunks.
	searchWalk, walkChunk int
	// smallList is the most conversations a list may hold for its search
	// to read all their messages instead (search.go); a test sets 0.
	smallList int
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url, applies pending migrations under an
// advisory lock and returns a ready store.
//
// url is a libpq connection string, postgres://... or key=value. Settings
// pgx does not know are sent to the server as session parameters, so
// ?search_path=name keeps the store in its own schema (the tests give each
// run a fresh one); pool_max_conns and the other pgxpool settings work too.
func Open(ctx context.Context, url string) (*Store, error) {
	if url == "" {
		return nil, errors.New("postgres: empty database url")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors do not echo the password.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// NewWithConfig connects lazily; ping so a wrong address or password is
	// reported by Open, not by the first request.
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", redacted(cfg), err)
	}
	if err := migrate(ctx, pool, migrationFiles()); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool, searchWalk: searchWalk, walkChunk: walkChunk, smallList: store.ShortSearchWindow}, nil
}

// redacted names the server and database without the credentials, for
// error messages that end up in logs.
func redacted(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.pool.Ping(ctx)
}

// Close closes the pool, waiting for connections in use to be returned.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Pool is the store's connection pool, for the LISTEN/NOTIFY notifier
// (notify.PostgresNotifier) that shares the database.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }
