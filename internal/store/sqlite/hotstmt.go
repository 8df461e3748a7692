package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
)

// The writes every chat and every init runs — the savepoint around each
// write, the message inserts, the conversation updates, a new
// conversation and its usage row — are statements of the writer's driver
// connection, run directly. Through database/sql, each use of a prepared
// statement inside a transaction binds a copy of it to the transaction,
// converts every argument by reflection and takes several locks: about a
// sixth of a chat's SQL work (callgrind: 123.5k instructions per chat and
// reply through database/sql, 104.0k directly). The rest of the writes, and
// every query, go through database/sql as before.
//
// The statements are prepared on first use, by the committer, on the
// connection of the batch; should database/sql ever hand it a new
// connection (after discarding a broken one), they are prepared again.

// hot names a hot statement.
type hot int

const (
	hotSavepoint hot = iota
	hotRollbackTo
	hotRelease
	hotInsertMessage
	hotInsertTwo    // two messages in one statement: a chat and its reply
	hotAfterMessage // the conversation's state after a message
	hotSetMisses    // the same when only the count of misses changed
	hotSetWaiting
	hotInsertConv
	hotUpsertUsage
	hotCount
)

var hotSQL = [hotCount]string{
	hotSavepoint:  `SAVEPOINT w`,
	hotRollbackTo: `ROLLBACK TO w`,
	hotRelease:    `RELEASE w`,
	hotInsertMessage: `
		INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
	hotInsertTwo: `
		INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at)
		VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)`,
	hotAfterMessage: `
		UPDATE conversations SET mode = ?, waiting = ?, misses = ?, assignee_id = ?, assignee_name = ?
		WHERE id = ?`,
	hotSetMisses:  `UPDATE conversations SET misses = ? WHERE id = ?`,
	hotSetWaiting: `UPDATE conversations SET waiting = ? WHERE id = ? AND waiting <> ?`,
	hotInsertConv: `
		INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
	hotUpsertUsage: `
		INSERT INTO usage (account_id, period, conversations, overage_conversations, overage_cents)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (account_id, period) DO UPDATE SET
			conversations = excluded.conversations,
			overage_conversations = excluded.overage_conversations,
			overage_cents = excluded.overage_cents`,
}

// hotStmts are the hot statements as prepared on one driver connection.
// Only the committer touches them.
type hotStmts struct {
	conn  any // the driver connection they belong to
	stmts [hotCount]driver.Stmt
	args  [12]driver.NamedValue // reused for every run
}

// errHotConn stands in for driver.ErrBadConn from a hot statement: passed
// back through sql.Conn.Raw, ErrBadConn would make database/sql close the
// connection while the batch's transaction still holds it, and wait for
// itself forever. The batch fails instead, and the next one starts afresh.
var errHotConn = errors.New("sqlite: the writer connection broke")

// execHot runs statement h with args in the current batch's transaction;
// only a write, on the committer, may call it.
func (s *Store) execHot(h hot, args ...any) (res driver.Result, err error) {
	rawErr := s.batchConn.Raw(func(dc any) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("sqlite: hot statement panicked: %v", v)
			}
			if errors.Is(err, driver.ErrBadConn) {
				err = errHotConn
			}
		}()
		st, err := s.hot.stmt(dc, h)
		if err != nil {
			return err
		}
		nv := s.hot.args[:len(args)]
		defer clear(nv) // drop the references to the arguments
		for i, a := range args {
			v, err := driverValue(a)
			if err != nil {
				return err
			}
			nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		res, err = st.(driver.StmtExecContext).ExecContext(context.Background(), nv)
		return err
	})
	return res, rawErr
}

// stmt returns h as prepared on dc, preparing it on first use.
func (hs *hotStmts) stmt(dc any, h hot) (driver.Stmt, error) {
	if hs.conn != dc {
		hs.close()
		hs.conn = dc
	}
	if st := hs.stmts[h]; st != nil {
		return st, nil
	}
	st, err := dc.(driver.ConnPrepareContext).PrepareContext(context.Background(), hotSQL[h])
	if err != nil {
		return nil, err
	}
	hs.stmts[h] = st
	return st, nil
}

// close closes the statements; they belong to a connection that is gone
// or about to be.
func (hs *hotStmts) close() error {
	var errs []error
	for i, st := range hs.stmts {
		if st != nil {
			errs = append(errs, st.Close())
			hs.stmts[i] = nil
		}
	}
	hs.conn = nil
	return errors.Join(errs...)
}

// closeHot closes the hot statements on the writer connection.
func (s *Store) closeHot(ctx context.Context) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(any) error { return s.hot.close() })
}

// driverValue is what database/sql would pass the driver for a: the
// common kinds directly, anything else (named string types such as
// domain.Role, ints) by database/sql's own conversion.
func driverValue(a any) (driver.Value, error) {
	switch v := a.(type) {
	case string, int64, []byte, bool, float64, nil:
		return v, nil
	case int:
		return int64(v), nil
	}
	return driver.DefaultParameterConverter.ConvertValue(a)
}
