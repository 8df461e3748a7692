package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/store"
)

const messageCols = `seq, conversation_id, role, text, operator_name, created_at`

// AddMessage checks the mode, inserts and updates the conversation in one
// writer transaction, so an AI reply cannot slip in after an operator's
// takeover has committed.
func (s *Store) AddMessage(ctx context.Context, n store.NewMessage) (domain.Message, domain.Conversation, error) {
	m := domain.Message{
		ConversationID: n.ConversationID,
		Role:           n.Role,
		Text:           n.Text,
		OperatorName:   n.OperatorName,
		CreatedAt:      fromMillis(millis(n.CreatedAt)),
	}
	if n.CreatedAt.IsZero() {
		m.CreatedAt = now()
	}
	var c domain.Conversation
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := inWrite(ctx)
		var err error
		c, err = scanConversation(tx.StmtContext(ctx, s.ws.conversation).QueryRowContext(ctx, n.ConversationID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if n.RequireMode != "" && n.RequireMode != c.Mode {
			return domain.ErrModeChanged
		}
		res, err := tx.StmtContext(ctx, s.ws.insertMessage).ExecContext(ctx,
			m.ConversationID, m.Role, m.Text, fold(m.Text), m.OperatorName, millis(m.CreatedAt))
		if err != nil {
			return err
		}
		if m.Seq, err = res.LastInsertId(); err != nil {
			return err
		}
		if n.SetMode != "" {
			c.Mode = n.SetMode
		}
		if c.Mode == domain.ModeHuman {
			c.Waiting = false
		} else {
			// Handed back to the AI: nobody holds it any more, as in SetMode.
			c.AssigneeID, c.AssigneeName = "", ""
			if n.SetWaiting {
				c.Waiting = true
			}
		}
		if n.Role == domain.RoleAI {
			if n.Unanswered {
				c.Misses++
			} else {
				c.Misses = 0
			}
		}
		c.LastMessageAt, c.LastMessage = m.CreatedAt, m.Text
		_, err = tx.StmtContext(ctx, s.ws.afterMessage).ExecContext(ctx,
			c.Mode, c.Waiting, c.Misses, c.AssigneeID, c.AssigneeName, millis(m.CreatedAt), m.Text, m.ConversationID)
		return err
	})
	if err != nil {
		return domain.Message{}, domain.Conversation{}, fmt.Errorf("add message: %w", err)
	}
	return m, c, nil
}

func (s *Store) Messages(ctx context.Context, conversationID string) ([]domain.Message, error) {
	return s.messages(ctx, `SELECT `+messageCols+` FROM messages WHERE conversation_id = ? ORDER BY seq`, conversationID)
}

// MessagesAfter returns nothing for a limit below 1 rather than everything.
func (s *Store) MessagesAfter(ctx context.Context, conversationID string, role domain.Role, after int64, limit int) ([]domain.Message, error) {
	if limit < 1 {
		return []domain.Message{}, nil
	}
	return s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = ? AND role = ? AND seq > ?
		ORDER BY seq LIMIT `+limitArg, conversationID, role, after, limit)
}

func (s *Store) messages(ctx context.Context, query string, args ...any) ([]domain.Message, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	msgs := []domain.Message{}
	for rows.Next() {
		var m domain.Message
		var created int64
		if err := rows.Scan(&m.Seq, &m.ConversationID, &m.Role, &m.Text, &m.OperatorName, &created); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMillis(created)
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}
