package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/quota"
	"parley/internal/store"
)

// convCols are a conversation's columns, for queries FROM conversations.
// Its last message is read from the messages, newest by seq (one step
// down the messages_conversation index each), not stored on the
// conversation: a chat then writes its messages and nothing else
// (migration 0005).
const convCols = `id, agent_id, account_id, visitor_id, page_url, mode, created_at,
	(SELECT m.created_at FROM messages m WHERE m.conversation_id = conversations.id ORDER BY m.seq DESC LIMIT 1),
	coalesce((SELECT m.text FROM messages m WHERE m.conversation_id = conversations.id ORDER BY m.seq DESC LIMIT 1), ''),
	waiting, misses, assignee_id, assignee_name, user_id, visitor_name, visitor_email, verified, status,
	last_activity_at, waiting_since, asked, answered, handed_at, first_operator_at, helpful, not_helpful`

// scanConversation scans convCols, and then into extra the columns a
// query selects after them.
func scanConversation(sc scanner, extra ...any) (domain.Conversation, error) {
	var c domain.Conversation
	var created, activity int64
	var last, waitingSince, handed, firstOperator sql.NullInt64
	dest := append([]any{&c.ID, &c.AgentID, &c.AccountID, &c.VisitorID, &c.PageURL, &c.Mode,
		&created, &last, &c.LastMessage, &c.Waiting, &c.Misses, &c.AssigneeID, &c.AssigneeName,
		&c.UserID, &c.Name, &c.Email, &c.Verified, &c.Status, &activity, &waitingSince,
		&c.Asked, &c.Answered, &handed, &firstOperator, &c.Helpful, &c.NotHelpful}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return domain.Conversation{}, err
	}
	c.CreatedAt, c.LastActivityAt = fromMillis(created), fromMillis(activity)
	c.HandedAt, c.FirstOperatorAt = nullMillis(handed), nullMillis(firstOperator)
	if last.Valid {
		c.LastMessageAt = fromMillis(last.Int64)
	}
	if waitingSince.Valid {
		c.WaitingSince = fromMillis(waitingSince.Int64)
	}
	return c, nil
}

// CreateConversation reads the limits and the period's usage, admits and
// writes in one writer transaction. The writer is a single connection, so
// no other admission can run between the read and the write: the count is
// exact however many requests arrive at once.
func (s *Store) CreateConversation(ctx context.Context, n store.NewConversation) (domain.Conversation, error) {
	c, err := n.Build()
	if err != nil {
		return domain.Conversation{}, err
	}
	period := quota.Period(c.CreatedAt)

	var crossed []domain.UsageThreshold
	err = s.write(ctx, func(tx *sql.Tx) error {
		ctx := inWrite(ctx)
		crossed = nil
		// The join also checks that the agent belongs to the account.
		var l domain.Limits
		err := tx.StmtContext(ctx, s.ws.admitLimits).QueryRowContext(ctx, c.AccountID, c.AgentID).
			Scan(&l.MonthlyConversations, &l.OveragePriceCents, &l.SpendCapCents)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}

		u := domain.Usage{Period: period}
		err = tx.StmtContext(ctx, s.ws.admitUsage).QueryRowContext(ctx, c.AccountID, period).
			Scan(&u.Conversations, &u.OverageConversations, &u.OverageCents)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		before := u
		if u, err = quota.Admit(l, u); err != nil {
			return err
		}
		if crossed, err = s.markThresholds(ctx, tx, c, l, before, u); err != nil {
			return err
		}

		if _, err := s.execHot(hotInsertConv,
			c.ID, c.AgentID, c.AccountID, c.VisitorID, c.PageURL, c.Mode, millis(c.CreatedAt),
			c.UserID, c.Name, c.Email, c.Verified, millis(c.LastActivityAt)); err != nil {
			return err
		}
		if _, err = s.execHot(hotUpsertUsage,
			c.AccountID, period, u.Conversations, u.OverageConversations, u.OverageCents); err != nil {
			return err
		}
		s.wrote(c, 0, false)
		return nil
	})
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation: %w", constraintErr(err))
	}
	if n.Crossed != nil {
		*n.Crossed = crossed
	}
	return c, nil
}

func (s *Store) SetMode(ctx context.Context, conversationID string, m domain.Mode) (bool, error) {
	if err := store.CheckText(conversationID); err != nil {
		return false, err
	}
	if err := store.CheckMode(m); err != nil {
		return false, fmt.Errorf("set mode: %w", err)
	}
	changed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var cur domain.Mode
		err := tx.QueryRowContext(ctx, `SELECT mode FROM conversations WHERE id = ?`, conversationID).Scan(&cur)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if cur == m {
			return nil
		}
		changed = true
		s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: conversationID})
		// A human taking over ends the wait for one, and hands the
		// conversation off (its outcome). This takeover has no dashboard
		// user (TakeOver records one), and a release to the AI ends the
		// assignment: either way the assignee is cleared.
		if m == domain.ModeHuman {
			_, err = tx.ExecContext(ctx, `UPDATE conversations SET mode = 'human', waiting = 0, waiting_since = NULL,
				assignee_id = '', assignee_name = '', `+handOffSet+` WHERE id = ?`,
				append(handOffArgs(now()), conversationID)...)
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET mode = ?, assignee_id = '', assignee_name = '' WHERE id = ?`,
			m, conversationID)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("set mode: %w", err)
	}
	return changed, nil
}

func (s *Store) SetWaiting(ctx context.Context, conversationID string, waiting bool) (bool, error) {
	if err := store.CheckText(conversationID); err != nil {
		return false, err
	}
	// Through the group commit like every other write: on its own it
	// would wait for a commit (and an fsync) of its own.
	var n int64
	err := s.write(ctx, func(*sql.Tx) error {
		s.invalidate(cacheEvent{what: forgetConversation, id: conversationID}) // its poll state stays
		// A wait begins now, and hands the conversation off (its
		// outcome); NULL when it ends. A conversation already in the state
		// asked for is not written (AND waiting <> ?): its wait keeps its
		// start.
		var since any
		if waiting {
			since = millis(now())
		}
		asked, notAsked := store.HandedOffOutcomes()
		res, err := s.execHot(hotSetWaiting, waiting, since, string(asked), string(notAsked), conversationID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("set waiting: %w", err)
	}
	if n == 0 {
		// Unchanged, or no such conversation: tell them apart.
		if _, err := s.Conversation(ctx, conversationID); err != nil {
			return false, err
		}
	}
	return n > 0, nil
}

// TakeOver checks the mode and assigns in one writer transaction: two
// operators clicking at once are serialized by the single writer
// connection, so exactly one finds the conversation still with the AI.
func (s *Store) TakeOver(ctx context.Context, conversationID, userID, userName string) (domain.Conversation, bool, error) {
	if err := store.CheckText(conversationID, userID, userName); err != nil {
		return domain.Conversation{}, false, err
	}
	var c domain.Conversation
	won := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		c, err = scanConversation(tx.QueryRowContext(ctx, `SELECT `+convCols+` FROM conversations WHERE id = ?`, conversationID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if c.Mode == domain.ModeHuman {
			return nil // someone holds it already; c names them
		}
		won = true
		s.invalidate(cacheEvent{what: forgetConversation | forgetPollState, id: conversationID})
		at := now()
		c.Mode, c.Waiting, c.WaitingSince, c.AssigneeID, c.AssigneeName = domain.ModeHuman, false, time.Time{}, userID, userName
		c = c.HandOff(at)
		_, err = tx.ExecContext(ctx, `UPDATE conversations
			SET mode = 'human', waiting = 0, waiting_since = NULL, assignee_id = ?, assignee_name = ?, `+handOffSet+` WHERE id = ?`,
			append(append([]any{userID, userName}, handOffArgs(at)...), conversationID)...)
		return err
	})
	if err != nil {
		return domain.Conversation{}, false, fmt.Errorf("take over: %w", err)
	}
	return c, won, nil
}

// markThresholds writes the marker of each threshold the conversation
// crossed (quota.Crossed) in the admitting transaction and returns those
// whose marker was not there yet: each is told once per account and
// period however the limits change during it. Nothing is read or written
// when none was crossed.
func (s *Store) markThresholds(ctx context.Context, tx *sql.Tx, c domain.Conversation, l domain.Limits, before, after domain.Usage) ([]domain.UsageThreshold, error) {
	var out []domain.UsageThreshold
	for _, th := range quota.Crossed(l, before, after) {
		res, err := tx.ExecContext(ctx, `INSERT INTO usage_thresholds (account_id, period, threshold, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, c.AccountID, after.Period, th, millis(c.CreatedAt))
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n == 1 {
			out = append(out, domain.UsageThreshold{Threshold: th, Usage: after, Limits: l})
		}
	}
	return out, nil
}
