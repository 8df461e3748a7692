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

// The inbox search has two ways to find a page of matching conversations
// of three characters or more, and searchQuery picks one per query:
//
//   - the candidates: the FTS5 index's matches (migration 0021), each
//     looked up by its conversation's key; the page is the newest of them.
//     The cost grows with the number of matching messages, not with the
//     account's conversations.
//   - the scan: the list's ordered walk of the conversations with an
//     EXISTS over each one's messages, which stops at the page's end. A
//     term that is common in the list fills a page after a few
//     conversations; a rare one would read the whole list.
//
// It counts the matching messages in the index, at most searchCandidates+1
// of them: no more than that, it takes the candidates. More, it probes the
// scan on the list's newest searchProbe conversations (after the page's
// cursor): when they hold a page of matches, or are all the list has left,
// the scan costs no more than the probe did; else the matches lie among
// older conversations (or in other accounts), and the candidates are
// cheaper than a walk through all of them. docs/benchmarks.md has the
// measurements behind both numbers.
const (
	searchCandidates = 5000
	searchProbe      = 2000
)

// searchScope is the list a search looks through: its conditions and
// their arguments, order and page size. The first view conditions (and
// viewArgs arguments) are the list's without the page's cursor.
type searchScope struct {
	where          []string
	args           []any
	view, viewArgs int
	order          string
	limit          int
}

// searchSQL is the inbox search's part of the list's query: what it reads
// FROM (with the arguments of that text, which come before the WHERE's)
// and a condition to AND with the list's (with its arguments).
type searchSQL struct {
	from     string
	fromArgs []any
	cond     string
	condArgs []any
}

// searchQuery returns the search for q within sc.
func (s *Store) searchQuery(ctx context.Context, q string, sc searchScope) (searchSQL, error) {
	scan := `EXISTS (SELECT 1 FROM messages m
			WHERE m.conversation_id = conversations.id AND m.text_folded LIKE ? ESCAPE '` + likeEscape + `')`
	if store.ShortSearch(q) {
		// No trigram to look up: the scan, within the window of the list's
		// newest conversations (whatever page this is) as the candidates.
		window := `SELECT id AS hit FROM conversations WHERE ` + strings.Join(sc.where[:sc.view], " AND ") +
			` ORDER BY ` + sc.order + ` LIMIT ` + limitArg
		return candidatePage(window, slices.Concat(sc.args[:sc.viewArgs], []any{store.ShortSearchWindow}),
			scan, []any{containsPattern(q)}, sc), nil
	}
	phrase := ftsPhrase(q)
	var n int
	if err := s.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM messages_search
		WHERE messages_search MATCH ? LIMIT `+limitArg+`)`, phrase, s.searchCap+1).Scan(&n); err != nil {
		return searchSQL{}, err
	}
	if n > s.searchCap {
		scanned, hits, err := s.probeScan(ctx, q, sc)
		if err != nil {
			return searchSQL{}, err
		}
		if hits >= sc.limit || scanned < searchProbe {
			return searchSQL{from: "conversations", cond: scan, condArgs: []any{containsPattern(q)}}, nil
		}
	}
	// The index's matches, and those among the messages it does not hold
	// yet (searchindex.go): a range of seq. UNION ALL and DISTINCT rather
	// than UNION, whose merge the planner would feed from an ordered walk
	// of all the messages.
	matches := `SELECT DISTINCT hit FROM (
			SELECT m.conversation_id AS hit FROM messages_search JOIN messages m ON m.seq = messages_search.rowid
			WHERE messages_search MATCH ?
			UNION ALL
			SELECT conversation_id FROM messages
			WHERE seq > (SELECT indexed_seq FROM message_search_state) AND text_folded LIKE ? ESCAPE '` + likeEscape + `')`
	return candidatePage(matches, []any{phrase, containsPattern(q)}, "1", nil, sc), nil
}

// candidatePage is the search reading a page from candidates, a query of
// conversation ids (column hit) with its arguments, each kept when cond
// holds (with its arguments). The candidates are looked up by key,
// filtered, sorted and cut to the page before the list's columns are
// read: those read each conversation's last message, too dear for
// thousands of candidates. CROSS JOIN keeps the candidates the outer loop:
// without statistics (Parley runs no ANALYZE) the planner would rather
// walk the list's ordered index and test every conversation against them,
// all 100,000 when few match. The list's conditions, unqualified, name the
// conversations' columns in both queries (hit and search_hit are the only
// other columns).
func candidatePage(candidates string, candArgs []any, cond string, condArgs []any, sc searchScope) searchSQL {
	return searchSQL{
		from: `(SELECT id AS search_hit FROM (` + candidates + `) CROSS JOIN conversations ON conversations.id = hit
			WHERE ` + strings.Join(append(slices.Clone(sc.where), cond), " AND ") +
			` ORDER BY ` + sc.order + ` LIMIT ` + limitArg + `)
			CROSS JOIN conversations ON conversations.id = search_hit`,
		fromArgs: slices.Concat(candArgs, sc.args, condArgs, []any{sc.limit}),
		cond:     "1",
	}
}

// probeScan walks the list's newest searchProbe conversations within sc
// and says how many it found (scanned) and how many of them, up to a
// page, have a message containing q.
func (s *Store) probeScan(ctx context.Context, q string, sc searchScope) (scanned, hits int, err error) {
	window := `SELECT id FROM conversations WHERE ` + strings.Join(sc.where, " AND ") +
		` ORDER BY ` + sc.order + ` LIMIT ` + limitArg
	err = s.queryRow(ctx, `SELECT (SELECT count(*) FROM (`+window+`)),
		(SELECT count(*) FROM (SELECT 1 FROM (`+window+`) AS w WHERE EXISTS (SELECT 1 FROM messages m
			WHERE m.conversation_id = w.id AND m.text_folded LIKE ? ESCAPE '`+likeEscape+`') LIMIT `+limitArg+`))`,
		slices.Concat(sc.args, []any{searchProbe}, sc.args, []any{searchProbe, containsPattern(q), sc.limit})...).
		Scan(&scanned, &hits)
	return scanned, hits, err
}

// ftsPhrase is the FTS5 query matching the folded texts that contain q:
// one phrase, quoted, so nothing in q is query syntax. The trigram
// tokenizer splits it into its overlapping trigrams, and a phrase matches
// where they stand one after another: exactly where q is a substring.
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(fold(q), `"`, `""`) + `"`
}
