package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, as the store uses
)

func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// riverMigrationLock is the pg_advisory_lock key River's migrations run
// under ("river" in ASCII), apart from the store's own ("parley"):
// rivermigrate takes no lock, and two instances starting together must not
// both create River's tables.
const riverMigrationLock int64 = 0x7269766572

// openPostgres gives River a pool of its own on the store's database. A
// search_path in the URL is sent as a session parameter, so River's tables
// go in that schema, as the store's do.
func openPostgres(ctx context.Context, url string, cfg *river.Config, log *slog.Logger) (*Queue, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err) // pgx's parse errors do not echo the password
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	driver := riverpgxv5.New(pool)
	err = withPGLock(ctx, pool, func() error { return migrate(ctx, driver, log) })
	if err != nil {
		pool.Close()
		return nil, err
	}
	c, err := river.NewClient(driver, cfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return &Queue{client: c, closeDB: func() error { pool.Close(); return nil }}, nil
}

// withPGLock runs f holding River's migration lock on a connection of its
// own (a session lock belongs to one connection).
func withPGLock(ctx context.Context, pool *pgxpool.Pool, f func() error) (err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("jobs: connect: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, riverMigrationLock); err != nil {
		return fmt.Errorf("jobs: take the migration lock: %w", err)
	}
	defer func() {
		bg := context.WithoutCancel(ctx)
		if _, uerr := conn.Exec(bg, `SELECT pg_advisory_unlock($1)`, riverMigrationLock); uerr != nil {
			// The lock ends with its session: close rather than pool it.
			conn.Conn().Close(bg)
			err = errors.Join(err, fmt.Errorf("jobs: release the migration lock: %w", uerr))
		}
	}()
	return f()
}

// openSQLite opens a *sql.DB of River's own on the store's file: one
// connection (River's SQLite driver asks for it: its services run queries
// in parallel, which one SQLite connection cannot), with the store's
// settings — WAL, so the store's readers never wait for River's writes,
// and a busy timeout, so River's writes and the store's take turns on the
// file's write lock instead of failing. BEGIN IMMEDIATE takes that lock at
// the start of a transaction, so one that reads then writes waits for it
// rather than failing halfway. docs/operations.md ("Background jobs")
// measures what this costs the chats.
func openSQLite(ctx context.Context, path string, cfg *river.Config, log *slog.Logger) (*Queue, error) {
	path = strings.TrimPrefix(path, "sqlite:")
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("jobs: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("jobs: open %s: %w", path, err)
	}
	driver := riversqlite.New(db)
	// No lock to take here: two processes migrating one file at the same
	// moment collide on a table the other just made; the loser finds the
	// work done when it tries again.
	err = migrate(ctx, driver, log)
	if err != nil {
		err = migrate(ctx, driver, log)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	// SQLite has no LISTEN: River's stand-in polls a table every 50 ms,
	// about 15 ms of CPU a second on an idle instance. Without it a new
	// job, from this instance or another, waits for the next poll for jobs
	// (PollInterval, 1 s), which a sync can afford.
	sqliteCfg := *cfg
	sqliteCfg.PollOnly = true
	c, err := river.NewClient(driver, &sqliteCfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return &Queue{client: c, closeDB: db.Close}, nil
}

// sqliteDSN matches the pragmas of the store's writer (package
// store/sqlite, dsn): the driver runs each on every new connection.
func sqliteDSN(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	return "file:" + esc + "?" + strings.Join([]string{
		"_pragma=busy_timeout(10000)",
		"_pragma=foreign_keys(1)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(FULL)",
		"_txlock=immediate",
	}, "&")
}

// migrate applies River's embedded migrations that the database lacks.
func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], log *slog.Logger) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quietRiver(log)})
	if err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	for _, v := range res.Versions {
		log.Info("queue table migration applied", "version", v.Version, "name", v.Name)
	}
	return nil
}
