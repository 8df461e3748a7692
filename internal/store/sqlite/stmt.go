package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"parley/internal/store"
)

// Reads go through prepared statements kept for the life of the store:
// parsing SQL is a large part of a short read's cost in SQLite, and
// database/sql keeps each statement prepared on every pooled connection.

// limitArg is the way to write a LIMIT taken from a parameter: "LIMIT " +
// limitArg. SQLite reads the value bound to a bare "LIMIT ?" while it plans
// the statement, and so marks the statement to be compiled again whenever
// that parameter is bound anew — on every run. A kept statement with a bare
// "LIMIT ?" was re-prepared each time (a fifth of the widget poll's CPU
// went to sqlite3Reprepare). Inside a CAST the planner does not look at the
// value, and the one compiled plan is reused. TestNoBareLimitParameter
// keeps it that way.
const limitArg = `CAST(? AS INTEGER)`

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
//
// queryRow is for lookups of one row by a key, which take microseconds: it
// does not let ctx interrupt them once started (a request gone before then
// still fails with ctx's error), which spares the driver a goroutine per
// statement to watch ctx.
//
// Both refuse an argument that no stored text can equal (a NUL or invalid
// UTF-8) with store.ErrBadText, as PostgreSQL does (see store.ErrBadText).
func (s *Store) queryRow(ctx context.Context, query string, args ...any) scanner {
	if err := checkArgs(args); err != nil {
		return badRow{err}
	}
	if ctx.Err() == nil {
		ctx = context.WithoutCancel(ctx)
	}
	st, err := s.stmt(ctx, query)
	if err != nil {
		// A *sql.Row can only carry an error through a query; this one
		// fails the same way the statement did.
		return s.r.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
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

// The reads inside the widget's hot writes (the conversation, and an
// init's quota check) use statements prepared once on the writer
// connection. They are prepared in Open, before the committer starts:
// afterwards the committer holds the one writer connection for whole
// batches, and preparing through s.w would have to wait for it. Inside a
// write, tx.StmtContext finds the statement already prepared on the
// transaction's connection and reuses it. The hot writes are prepared the
// same way (hotwrites.go).
type writeStmts struct {
	conversation  *sql.Stmt // the conversation row and its number of messages, by id
	countMessages *sql.Stmt // a conversation's number of messages
	admitLimits   *sql.Stmt // the account's limits, joined with the agent
	admitUsage    *sql.Stmt // the period's usage

	all []*sql.Stmt // every one of the above, to close
}

func (w *writeStmts) prepare(ctx context.Context, db *sql.DB) error {
	var err error
	prep := func(query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		if st, err = db.PrepareContext(ctx, query); err == nil {
			w.all = append(w.all, st)
		}
		return st
	}
	w.conversation = prep(`SELECT ` + convCols + `,
		(SELECT count(*) FROM messages m WHERE m.conversation_id = conversations.id)
		FROM conversations WHERE id = ?`)
	w.countMessages = prep(`SELECT count(*) FROM messages WHERE conversation_id = ?`)
	w.admitLimits = prep(`
		SELECT a.monthly_conversations, a.overage_price_cents, a.spend_cap_cents
		FROM accounts a JOIN agents g ON g.account_id = a.id
		WHERE a.id = ? AND g.id = ?`)
	w.admitUsage = prep(`
		SELECT conversations, overage_conversations, overage_cents
		FROM usage WHERE account_id = ? AND period = ?`)
	if err != nil {
		w.close()
		return err
	}
	return nil
}

func (w *writeStmts) close() error {
	var errs []error
	for _, st := range w.all {
		errs = append(errs, st.Close())
	}
	w.all = nil
	return errors.Join(errs...)
}

// checkArgs refuses a query's text arguments as PostgreSQL would.
func checkArgs(args []any) error {
	for _, a := range args {
		if t, ok := a.(string); ok {
			if err := store.CheckText(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// badRow is a row whose query was refused before it ran.
type badRow struct{ err error }

func (r badRow) Scan(...any) error { return r.err }
