package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

// The writes every chat and every init runs — the savepoint around each
// write, the message inserts, the conversation updates, a new
// conversation and its usage row — are prepared once on the writer
// connection, in Open, before the committer takes it (parsing their SQL
// on every write was about a fifth of a chat's CPU, docs/benchmarks.md).
// Inside a batch, tx.StmtContext finds each already prepared on the
// transaction's connection and reuses it (batch.stmt).

// hot names a hot write.
type hot int

const (
	hotSavepoint hot = iota
	hotRollbackTo
	hotRelease
	hotInsertMessage
	hotInsertTwo        // two messages in one statement: a chat and its reply
	hotAfterMessage     // the conversation's state after a message
	hotSetOutcome       // the same when only the outcome's facts, the outcome and the activity changed
	hotSetMissesOutcome // the same when only the count of misses, the outcome and the activity changed
	hotSetMisses        // the same when only the count of misses (and the activity) changed
	hotTouch            // the same when only the latest activity changed: most messages
	hotSetWaiting
	hotInsertQuestion // the question of an AI reply that could not answer (recordQuestion)
	hotInsertConv
	hotUpsertUsage
	hotCount
)

var hotSQL = [hotCount]string{
	hotSavepoint:  `SAVEPOINT w`,
	hotRollbackTo: `ROLLBACK TO w`,
	hotRelease:    `RELEASE w`,
	hotInsertMessage: `
		INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at, prompt_tokens, completion_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	hotInsertTwo: `
		INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at, prompt_tokens, completion_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?)`,
	hotAfterMessage: `
		UPDATE conversations SET mode = ?, waiting = ?, waiting_since = ?, misses = ?, assignee_id = ?, assignee_name = ?,
			last_activity_at = ?, asked = ?, answered = ?, handed_at = ?, first_operator_at = ?, outcome = ?
		WHERE id = ?`,
	hotSetOutcome: `
		UPDATE conversations SET asked = ?, answered = ?, handed_at = ?, first_operator_at = ?, outcome = ?,
			last_activity_at = ?
		WHERE id = ?`,
	hotSetMissesOutcome: `UPDATE conversations SET misses = ?, outcome = ?, last_activity_at = ? WHERE id = ?`,
	hotSetMisses:        `UPDATE conversations SET misses = ?, last_activity_at = ? WHERE id = ?`,
	hotTouch:            `UPDATE conversations SET last_activity_at = ? WHERE id = ?`,
	// ?2 is the wait's start, NULL when it ends: a wait that begins hands
	// the conversation off (handOffSet), one that ends changes neither.
	hotSetWaiting: `
		UPDATE conversations SET waiting = ?1, waiting_since = ?2,
			handed_at = coalesce(handed_at, ?2), outcome = CASE WHEN ?2 IS NULL THEN outcome WHEN asked THEN ?3 ELSE ?4 END
		WHERE id = ?5 AND waiting <> ?1`,
	hotInsertQuestion: `
		INSERT INTO questions (account_id, agent_id, conversation_id, seq, text, lang, reason, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (seq) DO NOTHING`,
	hotInsertConv: `
		INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at,
			user_id, visitor_name, visitor_email, verified, last_activity_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	hotUpsertUsage: `
		INSERT INTO usage (account_id, period, conversations, overage_conversations, overage_cents)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (account_id, period) DO UPDATE SET
			conversations = excluded.conversations,
			overage_conversations = excluded.overage_conversations,
			overage_cents = excluded.overage_cents`,
}

// hotStmts are the hot writes prepared on the writer.
type hotStmts [hotCount]*sql.Stmt

func (hs *hotStmts) prepare(ctx context.Context, db *sql.DB) error {
	for h, query := range hotSQL {
		st, err := db.PrepareContext(ctx, query)
		if err != nil {
			hs.close()
			return err
		}
		hs[h] = st
	}
	return nil
}

func (hs *hotStmts) close() error {
	var errs []error
	for h, st := range hs {
		if st != nil {
			errs = append(errs, st.Close())
			hs[h] = nil
		}
	}
	return errors.Join(errs...)
}

// execHot runs hot write h with args in the current batch's transaction;
// only a write, on the committer, may call it.
//
// It takes plain values only (strings, numbers, booleans, nil): when a
// prepared statement's call into the driver panics inside a transaction —
// a driver.Valuer that panics, say — database/sql never releases the
// transaction's lock, and the committer would wait for it forever
// (TestHotWriteRefusesValuers). A panic in the caller's own code is the
// savepoint's to undo (inSavepoint).
func (s *Store) execHot(h hot, args ...any) (sql.Result, error) {
	for _, a := range args {
		if _, ok := a.(driver.Valuer); ok {
			return nil, fmt.Errorf("sqlite: hot write %d given a %T: plain values only", h, a)
		}
	}
	ctx := context.Background()
	return s.batch.stmt(ctx, h, s.hot[h]).ExecContext(ctx, args...)
}

// batchTx is the current batch's transaction and its hot writes bound to
// it, each bound once per batch rather than once per write (tx.StmtContext
// allocates and locks every time). The transaction closes them when it
// ends. Only the committer touches it.
type batchTx struct {
	tx    *sql.Tx
	stmts [hotCount]*sql.Stmt
}

func (b *batchTx) stmt(ctx context.Context, h hot, prepared *sql.Stmt) *sql.Stmt {
	if b.stmts[h] == nil {
		b.stmts[h] = b.tx.StmtContext(ctx, prepared)
	}
	return b.stmts[h]
}
