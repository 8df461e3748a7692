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
	if changesPollState(n) {
		defer s.polls.forget(n.ConversationID)
	}
	var m domain.Message
	var c domain.Conversation
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := inWrite(ctx)
		var err error
		if c, err = s.writeConversation(ctx, tx, n.ConversationID); err != nil {
			return err
		}
		if !n.Admits(c) {
			return domain.ErrModeChanged
		}
		if m, err = s.insertMessage(ctx, tx, n); err != nil {
			return err
		}
		c = n.Apply(c, m.CreatedAt)
		return s.saveConversation(ctx, tx, c)
	})
	if err != nil {
		return domain.Message{}, domain.Conversation{}, fmt.Errorf("add message: %w", err)
	}
	return m, c, nil
}

// AddExchange is AddMessage for two messages in one write: the
// conversation is read and updated once.
func (s *Store) AddExchange(ctx context.Context, msg, reply store.NewMessage) (domain.Conversation, bool, error) {
	if changesPollState(msg) || changesPollState(reply) {
		defer s.polls.forget(msg.ConversationID)
	}
	var c domain.Conversation
	var stored bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := inWrite(ctx)
		var err error
		stored = false
		if c, err = s.writeConversation(ctx, tx, msg.ConversationID); err != nil {
			return err
		}
		if !msg.Admits(c) {
			return domain.ErrModeChanged
		}
		m, err := s.insertMessage(ctx, tx, msg)
		if err != nil {
			return err
		}
		c = msg.Apply(c, m.CreatedAt)
		if reply.Admits(c) {
			if m, err = s.insertMessage(ctx, tx, reply); err != nil {
				return err
			}
			c, stored = reply.Apply(c, m.CreatedAt), true
		}
		return s.saveConversation(ctx, tx, c)
	})
	if err != nil {
		return domain.Conversation{}, false, fmt.Errorf("add exchange: %w", err)
	}
	return c, stored, nil
}

// changesPollState reports whether storing n can change its conversation's
// store.PollState: an operator message, or one that sets the mode.
func changesPollState(n store.NewMessage) bool {
	return n.Role == domain.RoleOperator || n.SetMode != ""
}

// insertMessage inserts n (created now if n has no time) and returns it
// with its seq.
func (s *Store) insertMessage(ctx context.Context, tx *sql.Tx, n store.NewMessage) (domain.Message, error) {
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
	res, err := tx.StmtContext(ctx, s.ws.insertMessage).ExecContext(ctx,
		m.ConversationID, m.Role, m.Text, fold(m.Text), m.OperatorName, millis(m.CreatedAt))
	if err != nil {
		return domain.Message{}, err
	}
	m.Seq, err = res.LastInsertId()
	return m, err
}

// saveConversation writes what a message changes of a conversation, and
// records the new value for the conversation cache.
func (s *Store) saveConversation(ctx context.Context, tx *sql.Tx, c domain.Conversation) error {
	_, err := tx.StmtContext(ctx, s.ws.afterMessage).ExecContext(ctx,
		c.Mode, c.Waiting, c.Misses, c.AssigneeID, c.AssigneeName, millis(c.LastMessageAt), c.LastMessage, c.ID)
	if err == nil {
		s.wrote(c)
	}
	return err
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
