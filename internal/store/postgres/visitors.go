package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// VisitorData reads the conversations, then all their messages in one
// query. conversations has no index on visitor_id: this scans the
// account's conversations down conversations_account, which a privacy
// request, rare and by hand, can afford (an index would cost every
// conversation's insert).
func (s *Store) VisitorData(ctx context.Context, accountID, visitorID string) ([]store.VisitorConversation, error) {
	if visitorID == "" {
		return nil, domain.ErrNotFound // "" would match every anonymous user_id
	}
	if err := store.CheckText(accountID, visitorID); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+convCols+` FROM conversations
		WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2) ORDER BY created_at, id`, accountID, visitorID)
	convs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Conversation, error) {
		return scanConversation(row)
	})
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", dbErr(err))
	}
	if len(convs) == 0 {
		return nil, domain.ErrNotFound
	}
	msgs, err := s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id IN (SELECT id FROM conversations WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2))
		ORDER BY conversation_id, seq`, accountID, visitorID)
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	out := store.GroupVisitorMessages(convs, msgs)
	if err := s.visitorExtras(ctx, out, accountID, visitorID); err != nil {
		return nil, fmt.Errorf("visitor data: %w", dbErr(err))
	}
	return out, nil
}

// visitorExtras fills in the rest of what is stored per conversation in
// two more queries: the rows a conversation has at most one of (browser
// details, contact, poll time, rating) joined in one, and the page
// histories in the other. A conversation deleted between the queries has
// no rows left to find, so it keeps zero values.
func (s *Store) visitorExtras(ctx context.Context, vcs []store.VisitorConversation, accountID, visitorID string) error {
	byID := store.IndexVisitorConversations(vcs)
	rows, _ := s.pool.Query(ctx, `SELECT c.id, v.user_agent, v.language, v.time_zone, v.referrer, k.given_at, k.language, p.seen_at,
			r.rating, r.comment, r.at
		FROM conversations c
		LEFT JOIN conversation_visitor v ON v.conversation_id = c.id
		LEFT JOIN visitor_contacts k ON k.conversation_id = c.id
		LEFT JOIN visitor_seen p ON p.conversation_id = c.id
		LEFT JOIN conversation_ratings r ON r.conversation_id = c.id
		WHERE c.account_id = $1 AND (c.visitor_id = $2 OR c.user_id = $2)`, accountID, visitorID)
	var id string
	var ua, lang, tz, ref, contactLang, comment *string // NULL: no such row
	var given, seen, ratedAt *time.Time
	var rating *int
	_, err := pgx.ForEachRow(rows, []any{&id, &ua, &lang, &tz, &ref, &given, &contactLang, &seen, &rating, &comment, &ratedAt}, func() error {
		vc := byID[id]
		if vc == nil {
			return nil // created after the conversations were read
		}
		if ua != nil {
			vc.Details = store.VisitorContext{UserAgent: *ua, Language: *lang, TimeZone: *tz, Referrer: *ref}
		}
		if given != nil {
			vc.ContactAt, vc.ContactLang = given.UTC(), *contactLang
		}
		if seen != nil {
			vc.PolledAt = seen.UTC()
		}
		if rating != nil {
			vc.Rating = &store.Rating{ConversationID: id, AccountID: accountID, Rating: *rating, Comment: *comment, At: ratedAt.UTC()}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var p store.PageView
	pages, _ := s.pool.Query(ctx, `SELECT conversation_id, url, at FROM conversation_pages
		WHERE conversation_id IN (SELECT id FROM conversations WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2))
		ORDER BY conversation_id, n DESC`, accountID, visitorID)
	_, err = pgx.ForEachRow(pages, []any{&id, &p.URL, &p.At}, func() error {
		if vc := byID[id]; vc != nil {
			vc.Details.Pages = append(vc.Details.Pages, store.PageView{URL: p.URL, At: p.At.UTC()})
		}
		return nil
	})
	return err
}

// DeleteVisitor is one DELETE, atomic by itself; the messages go with the
// conversations (ON DELETE CASCADE). Nothing is cached here: every
// instance's next read of a deleted conversation finds none.
func (s *Store) DeleteVisitor(ctx context.Context, accountID, visitorID string) error {
	if visitorID == "" {
		return domain.ErrNotFound // "" would match every anonymous user_id
	}
	if err := store.CheckText(accountID, visitorID); err != nil {
		return err
	}
	// One statement: the conversations (their rows cascade), and the
	// webhook deliveries about them, whose bodies hold their messages'
	// text (the log, and any still pending). Bodies name the
	// conversation's random id.
	var n int
	err := s.pool.QueryRow(ctx, `WITH gone AS (
			DELETE FROM conversations WHERE account_id = $1 AND (visitor_id = $2 OR user_id = $2) RETURNING id
		), logs AS (
			DELETE FROM webhook_deliveries d USING webhooks w, gone g
			WHERE d.webhook_id = w.id AND w.account_id = $1 AND position(convert_to(g.id, 'UTF8') IN d.body) > 0
			RETURNING 1
		)
		SELECT count(*) FROM gone`, accountID, visitorID).Scan(&n)
	if err != nil {
		return fmt.Errorf("delete visitor: %w", dbErr(err))
	}
	if n == 0 {
		return domain.ErrNotFound
	}
	return nil
}
