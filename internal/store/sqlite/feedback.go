package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/store"
)

// SetFeedback reads the conversation and the message and writes the
// thumbs, the conversation's counts and outcome, and the question, in one
// write: two thumbs on the same conversation are applied one after the
// other, each to what the previous one left.
func (s *Store) SetFeedback(ctx context.Context, conversationID string, seq int64, helpful bool) (domain.Conversation, bool, error) {
	if err := store.CheckText(conversationID); err != nil {
		return domain.Conversation{}, false, err
	}
	var out struct {
		c       domain.Conversation
		changed bool
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := inWrite(ctx)
		out.changed = false
		c, count, err := s.writeConversation(ctx, tx, conversationID)
		if err != nil {
			return err
		}
		out.c = c
		var role domain.Role
		var was sql.NullBool
		var at int64
		err = tx.QueryRowContext(ctx, `SELECT role, helpful, created_at FROM messages WHERE seq = ? AND conversation_id = ?`,
			seq, conversationID).Scan(&role, &was, &at)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if role != domain.RoleAI {
			return domain.ErrNotFound // thumbs go on the agent's answers only
		}
		if was.Valid && was.Bool == helpful {
			return nil
		}
		var before *bool
		if was.Valid {
			before = &was.Bool
		}
		out.c, out.changed = store.ApplyFeedback(c, before, helpful), true
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET helpful = ? WHERE seq = ?`, helpful, seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET helpful = ?, not_helpful = ?, outcome = ? WHERE id = ?`,
			out.c.Helpful, out.c.NotHelpful, string(out.c.Outcome()), conversationID); err != nil {
			return err
		}
		if err := s.feedbackQuestion(ctx, tx, c, seq, at, helpful); err != nil {
			return err
		}
		s.wrote(out.c, count, false)
		return nil
	})
	if err != nil {
		return domain.Conversation{}, false, fmt.Errorf("set feedback: %w", err)
	}
	return out.c, out.changed, nil
}

// feedbackQuestion records the question an answer marked "Not helpful"
// answered (the newest visitor message before it, at the answer's time)
// or, for "Helpful", removes that record. A reply that could not answer
// has its question recorded already (QuestionUnanswered), which a thumbs
// either way leaves alone (the insert gives way to it, the delete is of
// not_helpful rows only).
func (s *Store) feedbackQuestion(ctx context.Context, tx *sql.Tx, c domain.Conversation, seq, at int64, helpful bool) error {
	if helpful {
		_, err := tx.ExecContext(ctx, `DELETE FROM questions WHERE seq = ? AND reason = ?`, seq, store.QuestionNotHelpful)
		return err
	}
	return s.recordQuestion(ctx, tx, c, seq, at, store.QuestionNotHelpful, "", "")
}
