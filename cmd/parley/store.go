package main

import (
	"context"
	"strings"

	"parley/internal/store"
	"parley/internal/store/postgres"
	"parley/internal/store/sqlite"
)

// openStore picks the database by the form of dsn: postgres:// URLs for
// PostgreSQL, anything else is a SQLite file path (optionally "sqlite:PATH").
func openStore(ctx context.Context, dsn string) (store.Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, strings.TrimPrefix(dsn, "sqlite:"))
}
