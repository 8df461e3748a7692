package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"

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

// The inbox search has two ways to find a page of matching conversations,
// and searchQuery picks one per query by counting the matching messages in
// the FTS5 index (migration 0021), at most searchCandidates+1 of them:
//
//   - few matches (a rare term): the index's matches are the candidates,
//     each looked up by its conversation's key, and the page is the newest
//     of them. The cost grows with the number of matches, not with the
//     account's conversations.
//   - many (a common term): the list's ordered scan of the conversations
//     with an EXISTS over each one's messages, which stops at the page's
//     end; a common term fills a page after a few conversations.
//
// docs/benchmarks.md has the measurements behind searchCandidates.
const searchCandidates = 5000

// searchSQL is the inbox search's part of the list's query: what it reads
// FROM (with the arguments of that text, which come before the WHERE's)
// and a condition to AND with the list's (with its arguments).
type searchSQL struct {
	from     string
	fromArgs []any
	cond     string
	condArgs []any
}

// searchQuery returns the search for q. view and viewArgs are the list's
// conditions without the page's cursor (a short search's window is the
// list's newest conversations), order its ORDER BY.
func (s *Store) searchQuery(ctx context.Context, q string, view []string, viewArgs []any, order string) (searchSQL, error) {
	scan := `EXISTS (SELECT 1 FROM messages m
			WHERE m.conversation_id = conversations.id AND m.text_folded LIKE ? ESCAPE '` + likeEscape + `')`
	if store.ShortSearch(q) {
		// No trigram to look up: the scan, within the window.
		window := `id IN (SELECT id FROM conversations WHERE ` + strings.Join(view, " AND ") +
			` ORDER BY ` + order + ` LIMIT ` + limitArg + `)`
		return searchSQL{from: "conversations", cond: window + ` AND ` + scan,
			condArgs: append(slices.Clone(viewArgs), store.ShortSearchWindow, containsPattern(q))}, nil
	}
	phrase := ftsPhrase(q)
	var n int
	if err := s.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM messages_search
		WHERE messages_search MATCH ? LIMIT `+limitArg+`)`, phrase, s.searchCap+1).Scan(&n); err != nil {
		return searchSQL{}, err
	}
	if n > s.searchCap {
		return searchSQL{from: "conversations", cond: scan, condArgs: []any{containsPattern(q)}}, nil
	}
	// CROSS JOIN keeps the candidates the outer loop: without statistics
	// (Parley runs no ANALYZE) the planner would rather walk the list's
	// ordered index and test every conversation against them.
	return searchSQL{
		from: `(SELECT DISTINCT m.conversation_id AS search_hit
			FROM messages_search JOIN messages m ON m.seq = messages_search.rowid
			WHERE messages_search MATCH ?) CROSS JOIN conversations ON conversations.id = search_hit`,
		fromArgs: []any{phrase},
		cond:     "1",
	}, nil
}

// ftsPhrase is the FTS5 query matching the folded texts that contain q:
// one phrase, quoted, so nothing in q is query syntax. The trigram
// tokenizer splits it into its overlapping trigrams, and a phrase matches
// where they stand one after another: exactly where q is a substring.
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(fold(q), `"`, `""`) + `"`
}
