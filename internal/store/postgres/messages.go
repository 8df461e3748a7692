package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

const messageCols = `seq, conversation_id, role, text, operator_name, created_at`

// AddMessage locks the conversation row, checks the mode, inserts and
// updates the conversation in one transaction, so an AI reply cannot slip
// in after an operator's takeover has committed on any instance.
//
// The lock is taken for every message, conditional or not, and before the
// seq is drawn: the messages of one conversation then get their seqs in
// commit order, so a reader polling MessagesAfter(seq) never sees a later
// seq commit before an earlier one and skip it. (An identity alone only
// promises unique values; concurrent transactions may commit them out of
// order.)
func (s *Store) AddMessage(ctx context.Context, n store.NewMessage) (domain.Message, domain.Conversation, error) {
	m := domain.Message{
		ConversationID: n.ConversationID,
		Role:           n.Role,
		Text:           n.Text,
		OperatorName:   n.OperatorName,
		CreatedAt:      ms(n.CreatedAt),
	}
	if n.CreatedAt.IsZero() {
		m.CreatedAt = now()
	}
	var c domain.Conversation
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		c, err = scanConversation(tx.QueryRow(ctx,
			`SELECT `+convCols+` FROM conversations WHERE id = $1 FOR NO KEY UPDATE`, n.ConversationID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if n.RequireMode != "" && n.RequireMode != c.Mode {
			return domain.ErrModeChanged
		}
		err = tx.QueryRow(ctx, `
			INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`,
			m.ConversationID, m.Role, m.Text, fold(m.Text), m.OperatorName, m.CreatedAt).Scan(&m.Seq)
		if err != nil {
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
		_, err = tx.Exec(ctx, `
			UPDATE conversations SET mode = $1, waiting = $2, misses = $3, assignee_id = $4, assignee_name = $5,
				last_message_at = $6, last_message = $7
			WHERE id = $8`,
			c.Mode, c.Waiting, c.Misses, c.AssigneeID, c.AssigneeName, m.CreatedAt, m.Text, m.ConversationID)
		return err
	})
	if err != nil {
		return domain.Message{}, domain.Conversation{}, fmt.Errorf("add message: %w", err)
	}
	return m, c, nil
}

func (s *Store) Messages(ctx context.Context, conversationID string) ([]domain.Message, error) {
	return s.messages(ctx, `SELECT `+messageCols+` FROM messages WHERE conversation_id = $1 ORDER BY seq`, conversationID)
}

// MessagesAfter returns nothing for a limit below 1 rather than everything.
func (s *Store) MessagesAfter(ctx context.Context, conversationID string, role domain.Role, after int64, limit int) ([]domain.Message, error) {
	if limit < 1 {
		return []domain.Message{}, nil
	}
	return s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = $1 AND role = $2 AND seq > $3
		ORDER BY seq LIMIT $4`, conversationID, role, after, limit)
}

func (s *Store) messages(ctx context.Context, query string, args ...any) ([]domain.Message, error) {
	rows, _ := s.pool.Query(ctx, query, args...)
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Message, error) {
		var m domain.Message
		var created time.Time
		err := row.Scan(&m.Seq, &m.ConversationID, &m.Role, &m.Text, &m.OperatorName, &created)
		m.CreatedAt = ms(created)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("messages: %w", dbErr(err))
	}
	return msgs, nil
}
