package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// recordQuestion records, in a transaction, the question the AI reply seq
// of conversation c (created at at) was asked, for the knowledge gaps:
// text in language lang, or when text is "" the newest visitor message
// before the reply (none: nothing is recorded). One question per reply:
// a reply that has one keeps it.
func recordQuestion(ctx context.Context, tx pgx.Tx, c domain.Conversation, seq int64, at time.Time, reason store.QuestionReason, text, lang string) error {
	if text != "" {
		_, err := tx.Exec(ctx, `
			INSERT INTO questions (account_id, agent_id, conversation_id, seq, text, lang, reason, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (seq) DO NOTHING`,
			c.AccountID, c.AgentID, c.ID, seq, text, lang, string(reason), at)
		return err
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO questions (account_id, agent_id, conversation_id, seq, text, lang, reason, at)
		SELECT $1, $2, $3, $4, m.text, $5, $6, $7
		FROM messages m WHERE m.conversation_id = $3 AND m.role = 'visitor' AND m.seq < $4
		ORDER BY m.seq DESC LIMIT 1
		ON CONFLICT (seq) DO NOTHING`,
		c.AccountID, c.AgentID, c.ID, seq, lang, string(reason), at)
	return err
}

// recordUnanswered records the question of stored message m, from n,
// when it is an AI reply that could not answer (store.NewMessage.Asked).
func recordUnanswered(ctx context.Context, tx pgx.Tx, c domain.Conversation, n store.NewMessage, m domain.Message) error {
	text, ok := n.Asked()
	if !ok {
		return nil
	}
	return recordQuestion(ctx, tx, c, m.Seq, m.CreatedAt, store.QuestionUnanswered, text, n.Lang)
}
