package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"parley/internal/store"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var embedded embed.FS

// migrationFiles is the directory of the embedded migrations.
func migrationFiles() fs.FS {
	sub, err := fs.Sub(embedded, "migrations")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the migration files of fsys (store.LoadMigrations).
func loadMigrations(fsys fs.FS) ([]migration, error) {
	files, err := store.LoadMigrations(fsys)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	ms := make([]migration, 0, len(files))
	for _, f := range files {
		ms = append(ms, migration{version: f.Version, name: f.Name, sql: f.SQL})
	}
	return ms, nil
}

// migrationLock is the pg_advisory_lock key migrations run under: "parley"
// in ASCII. Advisory locks are per database, so instances migrating other
// schemas of the same database wait for each other too; migrations are
// short and rare, which makes that harmless.
const migrationLock int64 = 0x7061726c6579

// migrate applies the migrations of fsys that the database has not seen.
// Instances starting together take turns on the advisory lock: the first
// migrates, the others then find nothing left to do. Each migration runs in
// its own transaction together with its schema_migrations row (PostgreSQL
// DDL is transactional), so a failed one leaves no trace and is retried on
// the next start.
func migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) (err error) {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	// A session lock belongs to one connection, so hold one for the run.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("postgres: migrate: take the migration lock: %w", err)
	}
	defer func() {
		// Unlock even when ctx is done. Should that fail, close the
		// connection: the lock ends with its session, whereas a connection
		// returned to the pool would keep it and block every later start.
		bg := context.WithoutCancel(ctx)
		if _, uerr := conn.Exec(bg, `SELECT pg_advisory_unlock($1)`, migrationLock); uerr != nil {
			conn.Conn().Close(bg)
			err = errors.Join(err, fmt.Errorf("postgres: migrate: release the migration lock: %w", uerr))
		}
	}()

	// Created under the lock: concurrent CREATE TABLE IF NOT EXISTS can
	// still collide in PostgreSQL's catalog.
	if _, err := conn.Exec(ctx, `
		CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
		return fmt.Errorf("postgres: create schema_migrations: %w", err)
	}

	rows, err := conn.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("postgres: read schema version: %w", err)
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return fmt.Errorf("postgres: read schema version: %w", err)
	}
	// A database migrated by a newer binary has a schema this code does not
	// know; running on it could corrupt data, so refuse.
	if len(applied) > 0 {
		newest := slices.Max(applied)
		if len(ms) == 0 || newest > ms[len(ms)-1].version {
			return fmt.Errorf("postgres: database schema version %d is newer than this program knows", newest)
		}
	}

	for _, m := range ms {
		if slices.Contains(applied, m.version) {
			continue
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, conn *pgxpool.Conn, m migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// Without arguments pgx uses the simple protocol, which runs a
		// file of several statements in one call.
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: migration %s: %w", m.name, err)
	}
	return nil
}
