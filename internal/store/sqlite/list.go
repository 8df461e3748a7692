package sqlite

import (
	"context"
	"strings"

	"parley/internal/domain"
	"parley/internal/store"
)

// Conversations pages in f.Order with a keyset on (the order's time, id),
// down an index that holds the order (migration 0020; TestDeskFilterPlans):
// a page costs the same however deep it is. Conversations created while a
// client pages do not shift or repeat the later pages; in ByActivity, one
// that gets a message moves to the front, before the cursor, so it is not
// repeated either (the later pages miss it: it is on the first).
//
// Every message moves its conversation in each index keyed on
// last_activity_at (an entry deleted and inserted, docs/benchmarks.md), so
// they are as few as the desk's views allow: by status (open, resolved;
// unassigned is the open ones with no assignee, nearly all of them), by
// agent and status, and by assignee for the assigned ones only (mine),
// which a chat with the AI never touches. Every status by activity is the
// merge of a page of each (store.EveryStatus).
func (s *Store) Conversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	return store.EveryStatus(f, func(f store.ConversationFilter) (store.ConversationPage, error) {
		return s.conversations(ctx, accountID, f)
	})
}

func (s *Store) conversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	if f.Search != "" {
		return s.searchConversations(ctx, accountID, f)
	}
	query, args, err := s.conversationsQuery(accountID, f)
	if err != nil {
		return store.ConversationPage{}, err
	}
	page := store.ConversationPage{}
	if page.Conversations, err = s.conversationRows(ctx, query, args...); err != nil {
		return store.ConversationPage{}, err
	}
	if limit := f.PageSize(); len(page.Conversations) > limit {
		page.Conversations = page.Conversations[:limit]
		page.Next = f.Order.Next(page.Conversations[limit-1])
	}
	return page, nil
}

// conversationRows runs query, which selects convCols.
func (s *Store) conversationRows(ctx context.Context, query string, args ...any) ([]domain.Conversation, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	convs := []domain.Conversation{}
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, err
		}
		convs = append(convs, c)
	}
	return convs, rows.Err()
}

// conversationsQuery is the query of a page of f, one row more than the
// page (it tells whether another page follows).
func (s *Store) conversationsQuery(accountID string, f store.ConversationFilter) (string, []any, error) {
	if err := f.Check(); err != nil {
		return "", nil, err
	}
	cur, err := f.PageCursor()
	if err != nil {
		return "", nil, err
	}
	limit := f.PageSize()
	where, args := listWhere(accountID, f)
	key, order := orderBy(f.Order)
	if cur != nil {
		cmp := "<"
		if f.Order == store.ByWaiting {
			cmp = ">"
		}
		where = append(where, "("+key+", id) "+cmp+" (?, ?)")
		args = append(args, millis(cur.At), cur.ID)
	}
	return `SELECT ` + convCols + ` FROM conversations
		WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY ` + order + `
		LIMIT ` + limitArg, append(args, limit+1), nil
}

// listWhere is the list f selects (without its page's cursor or search):
// conditions on the conversations' columns, unqualified, and their
// arguments.
func listWhere(accountID string, f store.ConversationFilter) ([]string, []any) {
	where := []string{"account_id = ?"}
	args := []any{accountID}
	if f.AgentID != "" {
		where = append(where, "agent_id = ?")
		args = append(args, f.AgentID)
	}
	if f.UserID != "" {
		where = append(where, "user_id = ?")
		args = append(args, f.UserID)
	}
	if f.Mode != "" {
		where = append(where, "mode = ?")
		args = append(args, f.Mode)
	}
	// Literals, not parameters, where a partial index depends on them:
	// the planner takes one only for a WHERE it can see implies the
	// index's (conversations_waiting_since, conversations_assignee).
	switch {
	case f.Waiting != nil && *f.Waiting:
		where = append(where, "waiting = 1")
	case f.Waiting != nil:
		where = append(where, "waiting = 0")
	}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.Assignee != nil {
		where = append(where, "assignee_id = ?")
		args = append(args, *f.Assignee)
		if *f.Assignee != "" {
			where = append(where, "assignee_id <> ''")
		}
	}
	return where, args
}

// orderBy is the column an order pages on and its ORDER BY: newest first
// by start or by activity, longest waiting first.
func orderBy(o store.Order) (key, order string) {
	switch o {
	case store.ByActivity:
		return "last_activity_at", "last_activity_at DESC, id DESC"
	case store.ByWaiting:
		return "waiting_since", "waiting_since, id"
	}
	return "created_at", "created_at DESC, id DESC"
}
