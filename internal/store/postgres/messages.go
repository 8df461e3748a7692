package postgres

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/quota"
	"parley/internal/store"
)

const messageCols = `seq, conversation_id, role, text, operator_name, created_at, prompt_tokens, completion_tokens, helpful`

// AddMessage locks the conversation row, checks the mode and the cap,
// inserts and updates the conversation in one transaction, so an AI reply
// cannot slip in after an operator's takeover has committed on any
// instance, and no two chats can both take a conversation's last place:
// the count of messages lives on the locked row (message_count,
// migration 0002).
//
// The lock is taken for every message, conditional or not, and before the
// seq is drawn: the messages of one conversation then get their seqs in
// commit order, so a reader polling MessagesAfter(seq) never sees a later
// seq commit before an earlier one and skip it. (An identity alone only
// promises unique values; concurrent transactions may commit them out of
// order.)
func (s *Store) AddMessage(ctx context.Context, n store.NewMessage) (domain.Message, domain.Conversation, error) {
	var m domain.Message
	var c domain.Conversation
	err := s.write(ctx, func(tx pgx.Tx) error {
		var count int
		var err error
		if c, count, err = lockConversation(ctx, tx, n.ConversationID); err != nil {
			return err
		}
		if err := n.Check(c, count); err != nil {
			return err
		}
		if m, err = insertMessage(ctx, tx, n); err != nil {
			return err
		}
		if err := addTokens(ctx, tx, c.AccountID, m); err != nil {
			return err
		}
		if err := recordUnanswered(ctx, tx, c, n, m); err != nil {
			return err
		}
		c = n.Apply(c, m.CreatedAt)
		return saveConversation(ctx, tx, c, count+1)
	})
	if err != nil {
		return domain.Message{}, domain.Conversation{}, fmt.Errorf("add message: %w", err)
	}
	return m, c, nil
}

// AddExchange is AddMessage for two messages in one transaction, under one
// lock of the conversation row.
func (s *Store) AddExchange(ctx context.Context, msg, reply store.NewMessage) (domain.Conversation, int64, error) {
	if reply.Question == "" {
		reply.Question = msg.Text // the reply answers this message
	}
	var c domain.Conversation
	var replySeq int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		replySeq = 0 // a transaction retried starts afresh
		var count int
		var err error
		if c, count, err = lockConversation(ctx, tx, msg.ConversationID); err != nil {
			return err
		}
		if err := msg.Check(c, count); err != nil {
			return err
		}
		m, err := insertMessage(ctx, tx, msg)
		if err != nil {
			return err
		}
		c, count = msg.Apply(c, m.CreatedAt), count+1
		if reply.Admits(c) && reply.Fits(count) {
			if m, err = insertMessage(ctx, tx, reply); err != nil {
				return err
			}
			if err := addTokens(ctx, tx, c.AccountID, m); err != nil {
				return err
			}
			if err := recordUnanswered(ctx, tx, c, reply, m); err != nil {
				return err
			}
			c, count, replySeq = reply.Apply(c, m.CreatedAt), count+1, m.Seq
		}
		return saveConversation(ctx, tx, c, count)
	})
	if err != nil {
		return domain.Conversation{}, 0, fmt.Errorf("add exchange: %w", err)
	}
	return c, replySeq, nil
}

// lockConversation reads a conversation and its number of messages, and
// locks its row until the transaction ends (see AddMessage).
func lockConversation(ctx context.Context, tx pgx.Tx, id string) (domain.Conversation, int, error) {
	var count int
	c, err := scanConversation(tx.QueryRow(ctx,
		`SELECT `+convCols+`, message_count FROM conversations WHERE id = $1 FOR NO KEY UPDATE`, id), &count)
	return c, count, notFound(err, domain.ErrNotFound)
}

// insertMessage inserts n (created now if n has no time) and returns it
// with its seq.
func insertMessage(ctx context.Context, tx pgx.Tx, n store.NewMessage) (domain.Message, error) {
	m := n.Message()
	err := tx.QueryRow(ctx, `
		INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at, prompt_tokens, completion_tokens)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq`,
		m.ConversationID, m.Role, m.Text, fold(m.Text), m.OperatorName, m.CreatedAt, m.Tokens.Prompt, m.Tokens.Completion).Scan(&m.Seq)
	return m, err
}

// addTokens adds the LLM tokens of stored message m to its account's usage
// of m's month; messages without any (all but LLM replies) write nothing.
// The update adds to the row as it is when the lock on it is granted
// (READ COMMITTED), so concurrent replies and CreateConversation, which
// sets only the conversation counts, lose nothing.
func addTokens(ctx context.Context, tx pgx.Tx, accountID string, m domain.Message) error {
	if m.Tokens.IsZero() {
		return nil
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO usage (account_id, period, conversations, overage_conversations, overage_cents, prompt_tokens, completion_tokens)
		VALUES ($1, $2, 0, 0, 0, $3, $4)
		ON CONFLICT (account_id, period) DO UPDATE SET
			prompt_tokens = usage.prompt_tokens + excluded.prompt_tokens,
			completion_tokens = usage.completion_tokens + excluded.completion_tokens`,
		accountID, quota.Period(m.CreatedAt), m.Tokens.Prompt, m.Tokens.Completion)
	return err
}

// ConversationTokens sums down messages_conversation.
func (s *Store) ConversationTokens(ctx context.Context, conversationID string) (domain.Tokens, error) {
	var t domain.Tokens
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce(sum(prompt_tokens), 0)::bigint, coalesce(sum(completion_tokens), 0)::bigint
		FROM messages WHERE conversation_id = $1`, conversationID).Scan(&t.Prompt, &t.Completion)
	if err != nil {
		return domain.Tokens{}, fmt.Errorf("conversation tokens: %w", dbErr(err))
	}
	return t, nil
}

// saveConversation writes what a message changes of a conversation, and
// how many messages it now holds: one UPDATE of the locked row, which the
// latest activity (the desk's inbox order), the wait's start, and the
// outcome with the facts it reads (migration 0020_insights) join.
func saveConversation(ctx context.Context, tx pgx.Tx, c domain.Conversation, messages int) error {
	var since *time.Time // NULL while it does not wait
	if c.Waiting {
		since = &c.WaitingSince
	}
	_, err := tx.Exec(ctx, `
		UPDATE conversations SET mode = $1, waiting = $2, misses = $3, assignee_id = $4, assignee_name = $5,
			last_message_at = $6, last_message = $7, message_count = $8, last_activity_at = $9, waiting_since = $10,
			asked = $11, answered = $12, handed_at = $13, first_operator_at = $14, outcome = $15
		WHERE id = $16`,
		c.Mode, c.Waiting, c.Misses, c.AssigneeID, c.AssigneeName, c.LastMessageAt, c.LastMessage, messages,
		c.LastActivityAt, since, c.Asked, c.Answered, toNullTime(c.HandedAt), toNullTime(c.FirstOperatorAt), string(c.Outcome()), c.ID)
	return err
}

// LatestMessages reads the page newest first, one row more than asked to
// tell whether older ones exist, down messages_conversation.
func (s *Store) LatestMessages(ctx context.Context, conversationID string, before int64, limit int) (store.MessagePage, error) {
	limit = store.MessagePageSize(limit)
	if before != 0 {
		var one int
		err := s.pool.QueryRow(ctx, `SELECT 1 FROM messages WHERE seq = $1 AND conversation_id = $2`, before, conversationID).Scan(&one)
		if err != nil {
			return store.MessagePage{}, notFound(err, store.ErrBadMessageCursor)
		}
	} else {
		before = math.MaxInt64
	}
	msgs, err := s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = $1 AND seq < $2
		ORDER BY seq DESC LIMIT $3`, conversationID, before, limit+1)
	if err != nil {
		return store.MessagePage{}, err
	}
	return store.NewestFirst(msgs, limit), nil
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
		err := row.Scan(&m.Seq, &m.ConversationID, &m.Role, &m.Text, &m.OperatorName, &created, &m.Tokens.Prompt, &m.Tokens.Completion, &m.Helpful)
		m.CreatedAt = ms(created)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("messages: %w", dbErr(err))
	}
	return msgs, nil
}

// PollState reads what a poll needs in one query (PostgreSQL serves several
// instances: nothing is cached).
func (s *Store) PollState(ctx context.Context, id string) (store.PollState, error) {
	var st store.PollState
	err := s.pool.QueryRow(ctx, `
		SELECT agent_id, mode,
			COALESCE((SELECT max(seq) FROM messages WHERE conversation_id = c.id AND role = 'operator'), 0),
			status
		FROM conversations c WHERE id = $1`, id).Scan(&st.AgentID, &st.Mode, &st.LastOperatorSeq, &st.Status)
	return st, notFound(err, domain.ErrNotFound)
}
