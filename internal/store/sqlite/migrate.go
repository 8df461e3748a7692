package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"parley/internal/store"
	"time"
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
	step    func(ctx context.Context, tx *sql.Tx) error // nil for most
}

// migrationSteps are the Go parts of migrations, by version: data changes
// SQL cannot express. A step runs right after its migration's SQL in the
// same transaction, so the two apply (or fail) as one.
var migrationSteps = map[int]func(ctx context.Context, tx *sql.Tx) error{
	3: foldExistingMessages,
}

// loadMigrations reads the migration files of fsys (store.LoadMigrations)
// with their Go steps.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	files, err := store.LoadMigrations(fsys)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	ms := make([]migration, 0, len(files))
	for _, f := range files {
		ms = append(ms, migration{version: f.Version, name: f.Name, sql: f.SQL, step: migrationSteps[f.Version]})
	}
	return ms, nil
}

// migrate applies the migrations of fsys that the database has not seen,
// each in its own transaction together with its schema_migrations row, so a
// failed migration leaves no trace and is retried on the next start. db must
// be the writer: its transactions begin IMMEDIATE, so two processes opening
// the same new file cannot both apply a migration.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `
		CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at INTEGER NOT NULL
		) STRICT`); err != nil {
		return fmt.Errorf("sqlite: create schema_migrations: %w", err)
	}

	// A database migrated by a newer binary has a schema this code does not
	// know; running on it could corrupt data, so refuse.
	var newest sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("sqlite: read schema version: %w", err)
	}
	if known := len(ms); newest.Valid && (known == 0 || newest.Int64 > int64(ms[known-1].version)) {
		return fmt.Errorf("sqlite: database schema version %d is newer than this program knows", newest.Int64)
	}

	for _, m := range ms {
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.name, err)
	}
	defer tx.Rollback() // no-op after Commit

	// Checked inside the transaction: another process may have applied it
	// between our start and our lock.
	var applied int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&applied); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.name, err)
	}
	if applied > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.name, err)
	}
	if m.step != nil {
		if err := m.step(ctx, tx); err != nil {
			return fmt.Errorf("sqlite: migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.name, err)
	}
	return nil
}
