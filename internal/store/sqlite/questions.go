package sqlite

import (
	"context"
	"database/sql"

	"parley/internal/domain"
	"parley/internal/store"
)

// recordQuestion records, in a write, the question the AI reply seq of
// conversation c (created at at, in milliseconds) was asked, for the
// knowledge gaps: text in language lang, or when text is "" the newest
// visitor message before the reply (none: there was no question, and
// nothing is recorded). One question per reply: a reply that has one
// keeps it (the unanswered reply's, which a thumbs down gives way to).
func (s *Store) recordQuestion(ctx context.Context, tx *sql.Tx, c domain.Conversation, seq, at int64, reason store.QuestionReason, text, lang string) error {
	if text != "" {
		// Prepared once (a hot write): an agent that often cannot answer
		// records a question with many chats.
		_, err := s.execHot(hotInsertQuestion, c.AccountID, c.AgentID, c.ID, seq, text, lang, string(reason), at)
		return err
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO questions (account_id, agent_id, conversation_id, seq, text, lang, reason, at)
		SELECT ?, ?, ?, ?, m.text, ?, ?, ?
		FROM messages m WHERE m.conversation_id = ? AND m.role = 'visitor' AND m.seq < ?
		ORDER BY m.seq DESC LIMIT 1
		ON CONFLICT (seq) DO NOTHING`,
		c.AccountID, c.AgentID, c.ID, seq, lang, string(reason), at, c.ID, seq)
	return err
}

// recordUnanswered records the question of message n, stored with seq,
// when it is an AI reply that could not answer (store.NewMessage.Asked).
func (s *Store) recordUnanswered(ctx context.Context, tx *sql.Tx, c domain.Conversation, n *store.NewMessage, seq int64, r messageRow) error {
	text, ok := n.Asked()
	if !ok {
		return nil
	}
	return s.recordQuestion(ctx, tx, c, seq, millis(r.createdAt), store.QuestionUnanswered, text, n.Lang)
}
