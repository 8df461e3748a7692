package postgres

import (
	"context"
	"strings"

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

// The inbox search has two ways to find a page of matching conversations,
// and searchCondition picks one per query by counting the matching
// messages through the pg_trgm index (migration 0018), at most
// searchCandidates+1 of them. The planner cannot: it does not know how
// many messages a LIKE '%…%' matches, and took the ordered scan for terms
// that match a thousand old messages (half a second at 100,000
// conversations, docs/benchmarks.md).
//
//   - few matches (a rare term): the index's matches are the candidates,
//     looked up by the conversations' key, and the page is the newest of
//     them. The cost grows with the number of matches, not with the
//     account's conversations.
//   - many (a common term): the list's ordered scan of the conversations
//     with an EXISTS over each one's messages, which stops at the page's
//     end; a common term fills a page after a few conversations.
const searchCandidates = 5000

// searchCondition returns the condition on conversations that keeps those
// with a message containing q; arg adds a query argument and returns its
// placeholder. view is the list's conditions without the page's cursor (a
// short search's window is the list's newest conversations), order its
// ORDER BY.
func (s *Store) searchCondition(ctx context.Context, q string, view []string, arg func(any) string, order string) (string, error) {
	// E'\\' is one backslash however standard_conforming_strings is set.
	like := func() string { return `LIKE ` + arg(containsPattern(q)) + ` ESCAPE E'\\'` }
	scan := func() string {
		return `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id AND m.text_folded ` + like() + `)`
	}
	if store.ShortSearch(q) {
		// No trigram to look up: the scan, within the window. The view's
		// placeholders are used a second time, with the same values.
		window := `id IN (SELECT id FROM conversations WHERE ` + strings.Join(view, " AND ") +
			` ORDER BY ` + order + ` LIMIT ` + arg(store.ShortSearchWindow) + `)`
		return window + ` AND ` + scan(), nil
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM messages
		WHERE text_folded LIKE $1 ESCAPE E'\\' LIMIT $2) AS hits`, containsPattern(q), s.searchCap+1).Scan(&n)
	if err != nil {
		return "", dbErr(err)
	}
	if n > s.searchCap {
		return scan(), nil
	}
	// ARRAY(…) runs once, before the rest (an InitPlan), and = ANY of it
	// is a lookup by the primary key for each candidate.
	return `id = ANY (ARRAY(SELECT m.conversation_id FROM messages m WHERE m.text_folded ` + like() + `))`, nil
}
