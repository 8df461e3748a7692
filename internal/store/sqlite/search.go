package sqlite

import (
	"context"
	"database/sql"
	"math"
	"slices"
	"strings"

	"parley/internal/domain"
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

// A search's page is in match order (store.ByMatch): the conversations
// by their newest matching message, newest first. The index is read in
// that order (FTS5 by rowid, which is the message's seq, descending),
// after the messages above its mark (searchindex.go), which are newer
// than all it holds: each match is mapped to its conversation, kept when
// the conversation is in the list, the first time it is seen, and the
// reading stops at the page's end. A page costs the matches read until it
// is full: a few for a common term (whatever its age, the index holds
// only the matches), all of them only when the list holds fewer than a
// page (a term common in other lists or accounts, rare in this one).
//
// The cursor is the page's last newest match. A later page keeps the
// conversations whose newest match is below it: one shown before has a
// newer match, so it is not repeated, and one that gets a new match while
// the operator pages moves to the first page, as in the activity order.

// searchConversations is the page of f, which has a search.
func (s *Store) searchConversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	below, err := f.MatchesBelow()
	if err != nil {
		return store.ConversationPage{}, err
	}
	where, args := listWhere(accountID, f)
	limit := f.PageSize()
	found := store.NewMatches(limit + 1)
	small, err := s.listAtMost(ctx, where, args, s.smallList)
	if err != nil {
		return store.ConversationPage{}, err
	}
	switch {
	case small:
		err = s.windowMatches(ctx, f.Search, `SELECT id FROM conversations WHERE `+strings.Join(where, " AND "), args, below, f.PageSize(), found)
	case store.ShortSearch(f.Search):
		err = s.shortMatches(ctx, f, where, args, below, found)
	default:
		err = s.indexMatches(ctx, f.Search, where, args, below, found)
	}
	if err != nil {
		return store.ConversationPage{}, err
	}
	convs, err := s.conversationsByID(ctx, found.IDs())
	if err != nil {
		return store.ConversationPage{}, err
	}
	return found.Page(convs, limit), nil
}

// A small list is searched through its messages, as a short search's
// window is: the index holds the term's matches in every list and
// account, and when this list holds few of them (an operator's own few
// conversations, a term common elsewhere) its walk would read them all
// before it gives up on a full page. A list of no more than
// store.ShortSearchWindow conversations is all of its window, so the
// short search's way is exact there, and costs no more than a short
// search does on any list.

// listAtMost says whether the list (where, args) holds no more than n
// conversations; it counts at most n+1 of them, down the list's index.
func (s *Store) listAtMost(ctx context.Context, where []string, args []any, n int) (bool, error) {
	if n <= 0 {
		return false, nil
	}
	var count int
	err := s.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM conversations WHERE `+strings.Join(where, " AND ")+
		` LIMIT `+limitArg+`)`, append(slices.Clone(args), n+1)...).Scan(&count)
	return count <= n, err
}

// indexMatches reads q's matches below seq below into found, newest
// first: the messages above the index's mark (a range of seq, read
// directly), then the index's.
func (s *Store) indexMatches(ctx context.Context, q string, where []string, args []any, below int64, found *store.Matches) error {
	for _, mq := range matchQueries(q, where, args, below) {
		if err := s.readMatches(ctx, found, mq.query, mq.args...); err != nil || found.Full() {
			return err
		}
	}
	return nil
}

// matchQuery is a query with its arguments.
type matchQuery struct {
	query string
	args  []any
}

// matchQueries are the queries of q's matches below seq below, newest
// first: the messages above the index's mark, then the index's. Each
// match is kept when its conversation is in the list (where, args) and,
// on a later page, has no match at or above the cursor.
func matchQueries(q string, where []string, args []any, below int64) [2]matchQuery {
	pattern := containsPattern(q)
	where, condArgs := slices.Clone(where), slices.Clone(args)
	if below != math.MaxInt64 {
		// Inside the conversation's check, so that it runs only for the
		// list's conversations.
		where = append(where, `NOT EXISTS (SELECT 1 FROM messages n WHERE n.conversation_id = m.conversation_id
			AND n.seq >= ? AND n.text_folded LIKE ? ESCAPE '`+likeEscape+`')`)
		condArgs = append(condArgs, below, pattern)
	}
	cond := `EXISTS (SELECT 1 FROM conversations WHERE conversations.id = m.conversation_id AND ` + strings.Join(where, " AND ") + `)`
	return [2]matchQuery{{
		query: `SELECT m.seq, m.conversation_id FROM messages m
			WHERE m.seq > (SELECT indexed_seq FROM message_search_state) AND m.seq < ?
				AND m.text_folded LIKE ? ESCAPE '` + likeEscape + `' AND ` + cond + `
			ORDER BY m.seq DESC`,
		args: slices.Concat([]any{below, pattern}, condArgs),
	}, {
		// CROSS JOIN keeps the index the outer loop, read in its own order.
		query: `SELECT m.seq, m.conversation_id FROM messages_search CROSS JOIN messages m ON m.seq = messages_search.rowid
			WHERE messages_search MATCH ? AND messages_search.rowid < ?
				AND messages_search.rowid <= (SELECT indexed_seq FROM message_search_state) AND ` + cond + `
			ORDER BY messages_search.rowid DESC`,
		args: slices.Concat([]any{ftsPhrase(q), below}, condArgs),
	}}
}

// shortMatches reads the matches of q, shorter than a trigram, into
// found: no index can find them, so the search looks through the
// messages of the list's newest store.ShortSearchWindow conversations (in
// f's order, whatever page this is), each conversation's newest match
// worked out by GROUP BY, those below the cursor newest first.
func (s *Store) shortMatches(ctx context.Context, f store.ConversationFilter, where []string, args []any, below int64, found *store.Matches) error {
	window, windowArgs := shortWindow(f, where, args)
	return s.windowMatches(ctx, f.Search, window, windowArgs, below, f.PageSize(), found)
}

// windowMatches reads into found the matches of q among the messages of
// the conversations window (a query of their ids, with its arguments):
// each conversation's newest match, those below the cursor newest first,
// up to a page and one more. A small list is its own window, read in no
// order: a window in the list's order could take an index for the order
// rather than the one for the list's conditions.
func (s *Store) windowMatches(ctx context.Context, q, window string, windowArgs []any, below int64, page int, found *store.Matches) error {
	query := `SELECT max(m.seq) AS hit, m.conversation_id FROM messages m
		WHERE m.conversation_id IN (` + window + `) AND m.text_folded LIKE ? ESCAPE '` + likeEscape + `'
		GROUP BY m.conversation_id HAVING hit < ?
		ORDER BY hit DESC LIMIT ` + limitArg
	return s.readMatches(ctx, found, query, slices.Concat(windowArgs, []any{containsPattern(q), below, page + 1})...)
}

// shortWindow is the query of the ids of the list's newest
// store.ShortSearchWindow conversations in f.Order. Every status by
// activity has no index of its own (store.EveryStatus): it is the newest
// of the window of each status.
func shortWindow(f store.ConversationFilter, where []string, args []any) (string, []any) {
	_, order := orderBy(f.Order)
	arm := func(where []string) string {
		return `SELECT * FROM (SELECT id, last_activity_at FROM conversations WHERE ` + strings.Join(where, " AND ") +
			` ORDER BY ` + order + ` LIMIT ` + limitArg + `)`
	}
	if f.ByEachStatus() {
		byStatus := append(slices.Clone(where), "status = ?")
		return `SELECT id FROM (` + arm(byStatus) + ` UNION ALL ` + arm(byStatus) + `) ORDER BY ` + order + ` LIMIT ` + limitArg,
			slices.Concat(args, []any{domain.StatusOpen, store.ShortSearchWindow}, args, []any{domain.StatusResolved, store.ShortSearchWindow},
				[]any{store.ShortSearchWindow})
	}
	return `SELECT id FROM (` + arm(where) + `)`, append(slices.Clone(args), store.ShortSearchWindow)
}

// readMatches runs query, which selects a matching message's seq and its
// conversation newest first, into found until it is full.
func (s *Store) readMatches(ctx context.Context, found *store.Matches, query string, args ...any) error {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			return err
		}
		if found.Add(seq, id) {
			return nil
		}
	}
	return rows.Err()
}

// conversationsByID reads the conversations of ids, in no order.
func (s *Store) conversationsByID(ctx context.Context, ids []string) ([]domain.Conversation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return s.conversationRows(ctx, `SELECT `+convCols+` FROM conversations WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
}

// ftsPhrase is the FTS5 query matching the folded texts that contain q:
// one phrase, quoted, so nothing in q is query syntax. The trigram
// tokenizer splits it into its overlapping trigrams, and a phrase matches
// where they stand one after another: exactly where q is a substring.
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(fold(q), `"`, `""`) + `"`
}
