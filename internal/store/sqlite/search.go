package sqlite

import (
	"context"
	"database/sql"

	"parley/internal/store"
)

// The inbox search (see store.Fold): SQLite's LIKE, lower() and NOCASE fold
// ASCII only, so messages.text_folded = fold(text) is written by AddMessage
// and the folded query is matched against it. Folding in Go rather than in
// a registered SQL function keeps the query plain SQL and folds each text
// once, not on every search.

const likeEscape = store.LikeEscape

// foldBatch bounds the rows foldExistingMessages holds in memory at once.
const foldBatch = 500

// foldExistingMessages is the Go step of migration 0003: it fills
// text_folded for the messages stored before the column existed. It walks
// the table in seq order a batch at a time, so a large table is never read
// into memory whole.
func foldExistingMessages(ctx context.Context, tx *sql.Tx) error {
	update, err := tx.PrepareContext(ctx, `UPDATE messages SET text_folded = ? WHERE seq = ?`)
	if err != nil {
		return err
	}
	defer update.Close()

	type row struct {
		seq  int64
		text string
	}
	var after int64
	for {
		// Read the whole batch before writing: the rows of a query must be
		// closed before the same connection runs the updates.
		rows, err := tx.QueryContext(ctx, `SELECT seq, text FROM messages WHERE seq > ? ORDER BY seq LIMIT `+limitArg, after, foldBatch)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.text); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range batch {
			if _, err := update.ExecContext(ctx, fold(r.text), r.seq); err != nil {
				return err
			}
		}
		if len(batch) < foldBatch {
			return nil
		}
		after = batch[len(batch)-1].seq
	}
}

func fold(s string) string            { return store.Fold(s) }
func containsPattern(q string) string { return store.ContainsPattern(q) }
