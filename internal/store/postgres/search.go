package postgres

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

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

// The inbox search has two ways to find a page of matching conversations
// of three characters or more, and searchCondition picks one per query
// (the planner cannot: it does not know how many messages a LIKE '%…%'
// matches, and took the ordered scan for a term in a thousand old
// messages, half a second at 100,000 conversations; docs/benchmarks.md):
//
//   - the candidates: the pg_trgm index's matches (migration 0018), looked
//     up by the conversations' key; the page is the newest of them. The
//     cost grows with the number of matching messages, not with the
//     account's conversations.
//   - the scan: the list's ordered walk of the conversations with an
//     EXISTS over each one's messages, which stops at the page's end. A
//     term that is common in the list fills a page after a few
//     conversations; a rare one would read the whole list.
//
// It counts the matching messages through the index, at most
// searchCandidates+1 of them: no more than that, it takes the candidates.
// More, it probes the scan on the list's newest searchProbe conversations
// (after the page's cursor): when they hold a page of matches, or are all
// the list has left, the scan costs no more than the probe did; else the
// matches lie among older conversations (or in other accounts), and the
// candidates are cheaper than a walk through all of them. The SQLite
// store decides the same way.
const (
	searchCandidates = 5000
	searchProbe      = 2000
)

// searchScope is the list a search looks through: its conditions, the
// first view of them without the page's cursor, with their arguments so
// far and arg to add one (it returns the placeholder); order and page size.
type searchScope struct {
	where []string
	view  int
	args  []any
	arg   func(any) string
	order string
	limit int
}

// searchCondition returns the condition on conversations that keeps those
// within sc with a message containing q.
func (s *Store) searchCondition(ctx context.Context, q string, sc searchScope) (string, error) {
	// E'\\' is one backslash however standard_conforming_strings is set.
	like := func() string { return `LIKE ` + sc.arg(containsPattern(q)) + ` ESCAPE E'\\'` }
	scan := func() string {
		return `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id AND m.text_folded ` + like() + `)`
	}
	if store.ShortSearch(q) {
		// No trigram to look up: the scan, within the window of the list's
		// newest conversations (whatever page this is), taken first (an
		// InitPlan) and looked up by key; as a plain IN the planner walked
		// the whole list when nothing matched. The list's placeholders
		// are used a second time, with the same values.
		window := `id = ANY (ARRAY(SELECT id FROM conversations WHERE ` + strings.Join(sc.where[:sc.view], " AND ") +
			` ORDER BY ` + sc.order + ` LIMIT ` + sc.arg(store.ShortSearchWindow) + `))`
		return window + ` AND ` + scan(), nil
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM messages
		WHERE text_folded LIKE $1 ESCAPE E'\\' LIMIT $2) AS hits`, searchPlanned, containsPattern(q), s.searchCap+1).Scan(&n)
	if err != nil {
		return "", dbErr(err)
	}
	if n > s.searchCap {
		scanned, hits, err := s.probeScan(ctx, q, sc)
		if err != nil {
			return "", err
		}
		if hits >= sc.limit || scanned < searchProbe {
			return scan(), nil
		}
	}
	// ARRAY(…) runs once, before the rest (an InitPlan), and = ANY of it
	// is a lookup by the primary key for each candidate.
	return `id = ANY (ARRAY(SELECT m.conversation_id FROM messages m WHERE m.text_folded ` + like() + `))`, nil
}

// searchArgs are a list's query arguments, planned for their values when
// the list has a search (see searchPlanned).
func searchArgs(search string, args []any) []any {
	if search == "" {
		return args
	}
	return append([]any{searchPlanned}, args...)
}

// searchPlanned runs a search's queries as unnamed statements, which
// PostgreSQL plans for the values given. pgx otherwise prepares and
// caches each statement, and after five runs PostgreSQL may keep a
// generic plan, made without the pattern: one that reads every message
// for a rare term (165 ms where the planned one takes a few, at 100,000
// conversations).
const searchPlanned = pgx.QueryExecModeExec

// probeScan walks the list's newest searchProbe conversations within sc
// and says how many it found (scanned) and how many of them, up to a
// page, have a message containing q.
func (s *Store) probeScan(ctx context.Context, q string, sc searchScope) (scanned, hits int, err error) {
	args := slices.Clone(sc.args)
	arg := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	window := `SELECT id FROM conversations WHERE ` + strings.Join(sc.where, " AND ") +
		` ORDER BY ` + sc.order + ` LIMIT ` + arg(searchProbe)
	err = s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM (`+window+`) AS w),
		(SELECT count(*) FROM (SELECT 1 FROM (`+window+`) AS w WHERE EXISTS (SELECT 1 FROM messages m
			WHERE m.conversation_id = w.id AND m.text_folded LIKE `+arg(containsPattern(q))+` ESCAPE E'\\')
			LIMIT `+arg(sc.limit)+`) AS hits)`, append([]any{searchPlanned}, args...)...).Scan(&scanned, &hits)
	return scanned, hits, dbErr(err)
}
