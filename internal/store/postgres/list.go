package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// Conversations pages in f.Order with a keyset on (the order's time, id),
// down an index that holds the order (migration 0017; TestDeskPlans): a
// page costs the same however deep it is. Conversations created while a
// client pages do not shift or repeat the later pages; in ByActivity, one
// that gets a message moves to the front, before the cursor, so it is not
// repeated either (the later pages miss it: it is on the first). ids are
// COLLATE "C", so the order is the byte order whatever the database's
// locale. The indexes are SQLite's (its list.go says why these); every
// status by activity is the merge of a page of each (store.EveryStatus).
func (s *Store) Conversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	return store.EveryStatus(f, func(f store.ConversationFilter) (store.ConversationPage, error) {
		return s.conversations(ctx, accountID, f)
	})
}

func (s *Store) conversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	if f.Search != "" {
		page, err := s.searchConversations(ctx, accountID, f)
		if err != nil {
			return store.ConversationPage{}, fmt.Errorf("conversations: %w", err)
		}
		return page, nil
	}
	query, args, err := s.conversationsQuery(accountID, f)
	if err != nil {
		return store.ConversationPage{}, err
	}
	rows, _ := s.pool.Query(ctx, query, args...)
	convs, err := collectConversations(rows)
	if err != nil {
		return store.ConversationPage{}, fmt.Errorf("conversations: %w", dbErr(err))
	}
	page := store.ConversationPage{Conversations: convs}
	if limit := f.PageSize(); len(convs) > limit {
		page.Conversations = convs[:limit]
		page.Next = f.Order.Next(convs[limit-1])
	}
	return page, nil
}

// collectConversations reads rows of convCols.
func collectConversations(rows pgx.Rows) ([]domain.Conversation, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Conversation, error) {
		return scanConversation(row)
	})
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
	var args queryArgs
	where := listWhere(accountID, f, args.add)
	key, order := orderBy(f.Order)
	if cur != nil {
		cmp := "<"
		if f.Order == store.ByWaiting {
			cmp = ">"
		}
		where = append(where, "("+key+", id) "+cmp+" ("+args.add(cur.At)+"::timestamptz, "+args.add(cur.ID)+")")
	}
	return `SELECT ` + convCols + ` FROM conversations
		WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY ` + order + `
		LIMIT ` + args.add(limit+1), args, nil
}

// queryArgs are a query's arguments.
type queryArgs []any

// add adds an argument and returns its placeholder.
func (a *queryArgs) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// listWhere is the list f selects (without its page's cursor or search):
// conditions on the conversations' columns, unqualified, with their
// arguments added by arg.
func listWhere(accountID string, f store.ConversationFilter, arg func(any) string) []string {
	where := []string{"account_id = " + arg(accountID)}
	if f.AgentID != "" {
		where = append(where, "agent_id = "+arg(f.AgentID))
	}
	if f.UserID != "" {
		where = append(where, "user_id = "+arg(f.UserID))
	}
	if f.Mode != "" {
		where = append(where, "mode = "+arg(f.Mode))
	}
	// Literals, not parameters, where a partial index depends on them: a
	// generic plan takes one only for a WHERE that implies the index's
	// (conversations_waiting_since, conversations_assignee).
	switch {
	case f.Waiting != nil && *f.Waiting:
		where = append(where, "waiting")
	case f.Waiting != nil:
		where = append(where, "NOT waiting")
	}
	if f.Status != "" {
		where = append(where, "status = "+arg(f.Status))
	}
	if f.Assignee != nil {
		where = append(where, "assignee_id = "+arg(*f.Assignee))
		if *f.Assignee != "" {
			where = append(where, "assignee_id <> ''")
		}
	}
	return where
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
