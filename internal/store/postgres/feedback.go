package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// SetFeedback locks the conversation row first, as every message does, so
// two thumbs on one conversation (on any instance) are applied one after
// the other, each to the counts the previous one left.
func (s *Store) SetFeedback(ctx context.Context, conversationID string, seq int64, helpful bool) (domain.Conversation, bool, error) {
	var c domain.Conversation
	var changed bool
	err := s.write(ctx, func(tx pgx.Tx) error {
		changed = false
		var err error
		if c, _, err = lockConversation(ctx, tx, conversationID); err != nil {
			return err
		}
		var role domain.Role
		var was *bool
		var at time.Time
		err = tx.QueryRow(ctx, `SELECT role, helpful, created_at FROM messages WHERE seq = $1 AND conversation_id = $2`,
			seq, conversationID).Scan(&role, &was, &at)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if role != domain.RoleAI {
			return domain.ErrNotFound // thumbs go on the agent's answers only
		}
		if was != nil && *was == helpful {
			return nil
		}
		c, changed = store.ApplyFeedback(c, was, helpful), true
		if _, err := tx.Exec(ctx, `UPDATE messages SET helpful = $1 WHERE seq = $2`, helpful, seq); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE conversations SET helpful = $1, not_helpful = $2, outcome = $3 WHERE id = $4`,
			c.Helpful, c.NotHelpful, string(c.Outcome()), conversationID); err != nil {
			return err
		}
		return feedbackQuestion(ctx, tx, c, seq, at, helpful)
	})
	if err != nil {
		return domain.Conversation{}, false, fmt.Errorf("set feedback: %w", err)
	}
	return c, changed, nil
}

// feedbackQuestion records or removes the question of an answer marked
// "Not helpful" or "Helpful", as SQLite's does (see there).
func feedbackQuestion(ctx context.Context, tx pgx.Tx, c domain.Conversation, seq int64, at time.Time, helpful bool) error {
	if helpful {
		_, err := tx.Exec(ctx, `DELETE FROM questions WHERE seq = $1 AND reason = $2`, seq, store.QuestionNotHelpful)
		return err
	}
	return recordQuestion(ctx, tx, c, seq, at, store.QuestionNotHelpful, "", "")
}
