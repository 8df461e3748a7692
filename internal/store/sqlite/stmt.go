package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// Reads go through prepared statements kept for the life of the store:
// parsing SQL is a large part of a short read's cost in SQLite, and
// database/sql keeps each statement prepared on every pooled connection.
// (A profile of the widget's poll still shows SQLite re-preparing them
// often — docs/benchmarks.md lists it as the next thing to look at.)

type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// stmt returns the read pool's prepared statement for query.
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	if st, ok := s.reads.stmts[query]; ok {
		return st, nil
	}
	st, err := s.r.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.reads.stmts == nil {
		s.reads.stmts = make(map[string]*sql.Stmt)
	}
	s.reads.stmts[query] = st
	return st, nil
}

// queryRow and query run a read on the read pool with a cached statement.
func (s *Store) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := s.stmt(ctx, query)
	if err != nil {
		// A *sql.Row can only carry an error through a query; this one
		// fails the same way the statement did.
		return s.r.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
}
