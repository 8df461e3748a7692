package postgres

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// The inbox search (see store.Fold): PostgreSQL's lower() and ILIKE fold by
// the database's locale (nothing but ASCII under C, a common choice), so,
// like the SQLite store, this store keeps messages.text_folded =
// fold(text), written by AddMessage, and matches the folded query against
// it with a plain LIKE. Both stores share the folding, so they find the
// same conversations.

// fold and containsPattern are the shared search folding (store.Fold).
func fold(s string) string            { return store.Fold(s) }
func containsPattern(q string) string { return store.ContainsPattern(q) }

// A search's page is in match order (store.ByMatch): the conversations
// by their newest matching message, newest first; the SQLite store's
// search.go says how a later page goes on from the cursor. The pg_trgm
// index finds matches in no order, so the page is read in two steps:
//
//   - the walk: the newest searchWalk messages below the cursor, down the
//     primary key (seq), each matched and its conversation checked, in
//     the page's order. A term common among the recent messages of the
//     list fills the page here, however many messages it is in.
//   - the index: when the walk left the page short, every match below
//     it, found through the index, grouped by conversation, those whose
//     newest match is below the walk newest first. It costs the number of
//     matches: a few for a rare term, and for a common one that the walk
//     did not find, the matches of old conversations (docs/benchmarks.md).
//
// Neither step alone is fast for every term: the walk reads every message
// for a rare one, the index every match for a common one.
const searchWalk = 4000

// searchConversations is the page of f, which has a search.
func (s *Store) searchConversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	below, err := f.MatchesBelow()
	if err != nil {
		return store.ConversationPage{}, err
	}
	limit := f.PageSize()
	found := store.NewMatches(limit + 1)
	small, err := s.listAtMost(ctx, accountID, f, s.smallList)
	if err != nil {
		return store.ConversationPage{}, err
	}
	switch {
	case small:
		var args queryArgs
		window := `SELECT id FROM conversations WHERE ` + strings.Join(listWhere(accountID, f, args.add), " AND ")
		err = s.windowMatches(ctx, f.Search, window, args, below, f.PageSize(), found)
	case store.ShortSearch(f.Search):
		err = s.shortMatches(ctx, accountID, f, below, found)
	default:
		err = s.indexMatches(ctx, accountID, f, below, found)
	}
	if err != nil {
		return store.ConversationPage{}, err
	}
	var convs []domain.Conversation
	if ids := found.IDs(); len(ids) > 0 {
		rows, _ := s.pool.Query(ctx, `SELECT `+convCols+` FROM conversations WHERE id = ANY ($1::text[])`, ids)
		if convs, err = collectConversations(rows); err != nil {
			return store.ConversationPage{}, dbErr(err)
		}
	}
	return found.Page(convs, limit), nil
}

// A small list is searched through its messages, as a short search's
// window is (the SQLite store's search.go says why: a term common in
// other lists would otherwise be read match by match); a list of no more
// than store.ShortSearchWindow conversations is all of its window.

// listAtMost says whether f's list holds no more than n conversations;
// it counts at most n+1 of them.
func (s *Store) listAtMost(ctx context.Context, accountID string, f store.ConversationFilter, n int) (bool, error) {
	if n <= 0 {
		return false, nil
	}
	var args queryArgs
	where := strings.Join(listWhere(accountID, f, args.add), " AND ")
	var count int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM conversations WHERE `+where+` LIMIT `+args.add(n+1)+`) AS l`,
		append([]any{searchPlanned}, args...)...).Scan(&count)
	return count <= n, dbErr(err)
}

// like is the condition that the folded text col contains q, its
// argument added by arg. E'\\' is one backslash however
// standard_conforming_strings is set.
func like(col, q string, arg func(any) string) string {
	return col + ` LIKE ` + arg(containsPattern(q)) + ` ESCAPE E'\\'`
}

// indexMatches reads f's matches below seq below into found, newest
// first: the walk, then the index (see searchWalk).
func (s *Store) indexMatches(ctx context.Context, accountID string, f store.ConversationFilter, below int64, found *store.Matches) error {
	// low is the walk's last message: the walk reads [low, below), the
	// index what is under it. 0: the walk reads them all.
	low := below
	if s.searchWalk > 0 {
		err := s.pool.QueryRow(ctx, `SELECT seq FROM messages WHERE seq < $1 ORDER BY seq DESC OFFSET $2 LIMIT 1`,
			below, s.searchWalk-1).Scan(&low)
		if errors.Is(err, pgx.ErrNoRows) {
			low = 0
		} else if err != nil {
			return dbErr(err)
		}
		// In chunks, so that a common term's page is read from the first
		// few hundred matches, not all of the walk's.
		for upper := below; ; {
			query, args := walkQuery(accountID, f, low, upper, below, s.walkChunk)
			n, last, err := s.readMatches(ctx, found, query, args)
			if err != nil || found.Full() {
				return err
			}
			if n < s.walkChunk {
				break
			}
			upper = last
		}
		if low == 0 {
			return nil
		}
	}
	query, args := indexQuery(accountID, f, low, f.PageSize()+1-found.Len())
	_, _, err := s.readMatches(ctx, found, query, args)
	return err
}

// walkChunk is how many matches a query of the walk returns at most.
const walkChunk = 500

// walkQuery is a query of the walk: up to chunk of f's matches in
// [low, upper), newest first, each with whether it counts (below is the
// page's cursor). Whether it does is worked out per
// match by scalar subqueries in the select list, down conversations_pkey
// and messages_conversation: as EXISTS, PostgreSQL may hash all the list's
// conversations (or all the messages above the cursor) for the few
// thousand matches instead.
func walkQuery(accountID string, f store.ConversationFilter, low, upper, below int64, chunk int) (string, queryArgs) {
	var args queryArgs
	query := `SELECT m.seq, m.conversation_id, coalesce((SELECT true FROM conversations WHERE conversations.id = m.conversation_id AND ` +
		strings.Join(listWhere(accountID, f, args.add), " AND ") + `), false)`
	if below != math.MaxInt64 {
		// On a later page, a conversation with a match at or above the
		// cursor had its place on an earlier one.
		query += ` AND (SELECT 1 FROM messages n WHERE n.conversation_id = m.conversation_id
			AND n.seq >= ` + args.add(below) + ` AND ` + like("n.text_folded", f.Search, args.add) + ` LIMIT 1) IS NULL`
	}
	return query + ` FROM messages m
		WHERE m.seq >= ` + args.add(low) + ` AND m.seq < ` + args.add(upper) + ` AND ` + like("m.text_folded", f.Search, args.add) + `
		ORDER BY m.seq DESC LIMIT ` + args.add(chunk), args
}

// indexQuery is the index's query: up to want conversations of f's
// list whose newest match is below low, newest first. The matches are
// grouped by conversation first, over all of a conversation's matches (so
// that one with a match in the walk or at or above the cursor is left
// out), sorted, and only then each checked against the list, down
// conversations_pkey, until want are found: joined before, PostgreSQL
// hashed every conversation of the list (30 ms at 100,000) to check the
// matches of a common term. OFFSET 0 keeps the check out of the grouping
// (PostgreSQL pushes no condition into a subquery with an OFFSET), and
// as a scalar subquery it cannot become a join.
func indexQuery(accountID string, f store.ConversationFilter, low int64, want int) (string, queryArgs) {
	var args queryArgs
	return `SELECT hit, conversation_id, true FROM (
			SELECT max(m.seq) AS hit, m.conversation_id FROM messages m
			WHERE ` + like("m.text_folded", f.Search, args.add) + `
			GROUP BY m.conversation_id HAVING max(m.seq) < ` + args.add(low) + `
			ORDER BY hit DESC OFFSET 0) AS g
		WHERE (SELECT true FROM conversations WHERE conversations.id = g.conversation_id AND ` +
		strings.Join(listWhere(accountID, f, args.add), " AND ") + `)
		LIMIT ` + args.add(want), args
}

// shortMatches reads the matches of f's search, shorter than a trigram,
// into found: the index cannot find them, so the search looks through
// the messages of the list's newest store.ShortSearchWindow
// conversations (in f's order, whatever page this is; taken first, an
// InitPlan, and looked up by key), each conversation's newest match
// worked out by GROUP BY, those below the cursor newest first. Every
// status by activity has no index of its own (store.EveryStatus): its
// window is the newest of the window of each status.
func (s *Store) shortMatches(ctx context.Context, accountID string, f store.ConversationFilter, below int64, found *store.Matches) error {
	var args queryArgs
	_, order := orderBy(f.Order)
	arm := func(status string) string {
		where := listWhere(accountID, f, args.add)
		if status != "" {
			where = append(where, "status = "+args.add(status))
		}
		return `(SELECT id, last_activity_at FROM conversations WHERE ` + strings.Join(where, " AND ") +
			` ORDER BY ` + order + ` LIMIT ` + args.add(store.ShortSearchWindow) + `)`
	}
	var window string
	if f.ByEachStatus() {
		window = `SELECT id FROM (` + arm(string(domain.StatusOpen)) + ` UNION ALL ` + arm(string(domain.StatusResolved)) +
			`) AS w ORDER BY ` + order + ` LIMIT ` + args.add(store.ShortSearchWindow)
	} else {
		window = `SELECT id FROM ` + arm("") + ` AS w`
	}
	return s.windowMatches(ctx, f.Search, window, args, below, f.PageSize(), found)
}

// windowMatches reads into found the matches of q among the messages of
// the conversations window (a query of their ids, whose arguments args
// holds): each conversation's newest match, those below the cursor
// newest first, up to a page and one more. A small list is its own
// window, read in no order.
func (s *Store) windowMatches(ctx context.Context, q, window string, args queryArgs, below int64, page int, found *store.Matches) error {
	query := `SELECT max(m.seq) AS hit, m.conversation_id, true FROM messages m
		WHERE m.conversation_id = ANY (ARRAY(` + window + `)) AND ` + like("m.text_folded", q, args.add) + `
		GROUP BY m.conversation_id HAVING max(m.seq) < ` + args.add(below) + `
		ORDER BY hit DESC LIMIT ` + args.add(page+1)
	_, _, err := s.readMatches(ctx, found, query, args)
	return err
}

// readMatches runs query, which selects a matching message's seq, its
// conversation and whether it counts, newest first, into found until it
// is full, and says how many rows it read and the last one's seq.
func (s *Store) readMatches(ctx context.Context, found *store.Matches, query string, args queryArgs) (n int, last int64, err error) {
	rows, err := s.pool.Query(ctx, query, append([]any{searchPlanned}, args...)...)
	if err != nil {
		return 0, 0, dbErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var counts bool
		if err := rows.Scan(&last, &id, &counts); err != nil {
			return n, last, dbErr(err)
		}
		n++
		if counts && found.Add(last, id) {
			return n, last, nil
		}
	}
	return n, last, dbErr(rows.Err())
}

// searchPlanned runs a search's queries as unnamed statements, which
// PostgreSQL plans for the values given. pgx otherwise prepares and
// caches each statement, and after five runs PostgreSQL may keep a
// generic plan, made without the pattern: one that reads every message
// for a rare term (165 ms where the planned one takes a few, at 100,000
// conversations).
const searchPlanned = pgx.QueryExecModeExec
