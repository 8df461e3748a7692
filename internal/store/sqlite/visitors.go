package sqlite

import (
	"context"
	"database/sql"
	"fmt"

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
	if err := store.CheckText(accountID, visitorID, visitorID); err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT `+convCols+` FROM conversations
		WHERE account_id = ? AND (visitor_id = ? OR user_id = ?) ORDER BY created_at, id`, accountID, visitorID, visitorID)
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	defer rows.Close()
	var convs []domain.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("visitor data: %w", err)
		}
		convs = append(convs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	if len(convs) == 0 {
		return nil, domain.ErrNotFound
	}
	msgs, err := s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id IN (SELECT id FROM conversations WHERE account_id = ? AND (visitor_id = ? OR user_id = ?))
		ORDER BY conversation_id, seq`, accountID, visitorID, visitorID)
	if err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
	}
	out := store.GroupVisitorMessages(convs, msgs)
	if err := s.visitorExtras(ctx, out, accountID, visitorID); err != nil {
		return nil, fmt.Errorf("visitor data: %w", err)
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
	rows, err := s.query(ctx, `SELECT c.id, v.user_agent, v.language, v.time_zone, v.referrer, k.given_at, k.language, p.seen_at,
			r.rating, r.comment, r.at
		FROM conversations c
		LEFT JOIN conversation_visitor v ON v.conversation_id = c.id
		LEFT JOIN visitor_contacts k ON k.conversation_id = c.id
		LEFT JOIN visitor_seen p ON p.conversation_id = c.id
		LEFT JOIN conversation_ratings r ON r.conversation_id = c.id
		WHERE c.account_id = ? AND (c.visitor_id = ? OR c.user_id = ?)`, accountID, visitorID, visitorID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var ua, lang, tz, ref, contactLang, comment sql.NullString // NULL: no such row
		var given, seen, rating, ratedAt sql.NullInt64
		if err := rows.Scan(&id, &ua, &lang, &tz, &ref, &given, &contactLang, &seen, &rating, &comment, &ratedAt); err != nil {
			return err
		}
		vc := byID[id]
		if vc == nil {
			continue // created after the conversations were read
		}
		vc.Details = store.VisitorContext{UserAgent: ua.String, Language: lang.String, TimeZone: tz.String, Referrer: ref.String}
		if given.Valid {
			vc.ContactAt, vc.ContactLang = fromMillis(given.Int64), contactLang.String
		}
		if seen.Valid {
			vc.PolledAt = fromMillis(seen.Int64)
		}
		if rating.Valid {
			vc.Rating = &store.Rating{ConversationID: id, AccountID: accountID, Rating: int(rating.Int64),
				Comment: comment.String, At: fromMillis(ratedAt.Int64)}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	pages, err := s.query(ctx, `SELECT conversation_id, url, at FROM conversation_pages
		WHERE conversation_id IN (SELECT id FROM conversations WHERE account_id = ? AND (visitor_id = ? OR user_id = ?))
		ORDER BY conversation_id, n DESC`, accountID, visitorID, visitorID)
	if err != nil {
		return err
	}
	defer pages.Close()
	for pages.Next() {
		var id string
		var p store.PageView
		var at int64
		if err := pages.Scan(&id, &p.URL, &at); err != nil {
			return err
		}
		p.At = fromMillis(at)
		if vc := byID[id]; vc != nil {
			vc.Details.Pages = append(vc.Details.Pages, p)
		}
	}
	return pages.Err()
}

// DeleteVisitor deletes the conversations; their messages go with them
// (ON DELETE CASCADE). Each deleted conversation is forgotten by the
// conversation and poll caches once the delete commits, so a poll of it
// afterwards answers as for an unknown conversation.
func (s *Store) DeleteVisitor(ctx context.Context, accountID, visitorID string) error {
	if visitorID == "" {
		return domain.ErrNotFound // "" would match every anonymous user_id
	}
	if err := store.CheckText(accountID, visitorID, visitorID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		ids, err := s.deleteConversations(ctx, tx, `DELETE FROM conversations
			WHERE account_id = ? AND (visitor_id = ? OR user_id = ?) RETURNING id`, accountID, visitorID, visitorID)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return domain.ErrNotFound
		}
		// The webhook deliveries about these conversations hold their
		// messages' text in their bodies (the log, and any still pending):
		// they go too. Bodies name the conversation's random id.
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries
				WHERE webhook_id IN (SELECT id FROM webhooks WHERE account_id = ?) AND instr(body, CAST(? AS BLOB)) > 0`, accountID, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete visitor: %w", err)
	}
	return nil
}
