package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/quota"
	"parley/internal/store"
)

const convCols = `id, agent_id, account_id, visitor_id, page_url, mode,
	created_at, last_message_at, last_message, waiting, misses, assignee_id, assignee_name,
	user_id, visitor_name, visitor_email, verified, status, last_activity_at, waiting_since,
	asked, answered, handed_at, first_operator_at, helpful, not_helpful`

// scanConversation scans convCols, and then into extra the columns a
// query selects after them.
func scanConversation(row pgx.Row, extra ...any) (domain.Conversation, error) {
	var c domain.Conversation
	var last, waitingSince *time.Time    // NULL until the first message; while not waiting
	var handed, firstOperator *time.Time // NULL: never handed off; no operator wrote
	dest := append([]any{&c.ID, &c.AgentID, &c.AccountID, &c.VisitorID, &c.PageURL, &c.Mode,
		&c.CreatedAt, &last, &c.LastMessage, &c.Waiting, &c.Misses, &c.AssigneeID, &c.AssigneeName,
		&c.UserID, &c.Name, &c.Email, &c.Verified, &c.Status, &c.LastActivityAt, &waitingSince,
		&c.Asked, &c.Answered, &handed, &firstOperator, &c.Helpful, &c.NotHelpful}, extra...)
	if err := row.Scan(dest...); err != nil {
		return domain.Conversation{}, err
	}
	c.CreatedAt, c.LastActivityAt = ms(c.CreatedAt), ms(c.LastActivityAt)
	if last != nil {
		c.LastMessageAt = ms(*last)
	}
	if waitingSince != nil {
		c.WaitingSince = ms(*waitingSince)
	}
	c.HandedAt, c.FirstOperatorAt = nullTime(handed), nullTime(firstOperator)
	return c, nil
}

// CreateConversation admits and writes in one transaction. It first locks
// the account row, so admissions of one account run one at a time across
// every instance: each reads the usage the previous one committed (READ
// COMMITTED takes a fresh snapshot per statement), and the count stays
// exact however many requests arrive at once.
func (s *Store) CreateConversation(ctx context.Context, n store.NewConversation) (domain.Conversation, error) {
	c, err := n.Build()
	if err != nil {
		return domain.Conversation{}, err
	}
	period := quota.Period(c.CreatedAt)

	var crossed []domain.UsageThreshold
	err = s.write(ctx, func(tx pgx.Tx) error {
		crossed = nil
		// The join also checks that the agent belongs to the account. FOR
		// NO KEY UPDATE OF a locks only the account, and in the mode that
		// lets foreign-key checks of concurrent inserts (KEY SHARE) pass.
		var l domain.Limits
		err := tx.QueryRow(ctx, `
			SELECT a.monthly_conversations, a.overage_price_cents, a.spend_cap_cents
			FROM accounts a JOIN agents g ON g.account_id = a.id
			WHERE a.id = $1 AND g.id = $2
			FOR NO KEY UPDATE OF a`, c.AccountID, c.AgentID).
			Scan(&l.MonthlyConversations, &l.OveragePriceCents, &l.SpendCapCents)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}

		u := domain.Usage{Period: period}
		err = tx.QueryRow(ctx, `
			SELECT conversations, overage_conversations, overage_cents
			FROM usage WHERE account_id = $1 AND period = $2`, c.AccountID, period).
			Scan(&u.Conversations, &u.OverageConversations, &u.OverageCents)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		before := u
		if u, err = quota.Admit(l, u); err != nil {
			return err
		}
		// The account row's lock orders admissions: one of them crosses
		// each threshold, and the marker's key tells it once a period.
		for _, th := range quota.Crossed(l, before, u) {
			tag, err := tx.Exec(ctx, `INSERT INTO usage_thresholds (account_id, period, threshold, created_at)
				VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, c.AccountID, period, th, c.CreatedAt)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				crossed = append(crossed, domain.UsageThreshold{Threshold: th, Usage: u, Limits: l})
			}
		}

		if _, err := tx.Exec(ctx, `
			INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at,
				user_id, visitor_name, visitor_email, verified, last_activity_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			c.ID, c.AgentID, c.AccountID, c.VisitorID, c.PageURL, c.Mode, c.CreatedAt,
			c.UserID, c.Name, c.Email, c.Verified, c.LastActivityAt); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO usage (account_id, period, conversations, overage_conversations, overage_cents)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (account_id, period) DO UPDATE SET
				conversations = excluded.conversations,
				overage_conversations = excluded.overage_conversations,
				overage_cents = excluded.overage_cents`,
			c.AccountID, period, u.Conversations, u.OverageConversations, u.OverageCents)
		return err
	})
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	if n.Crossed != nil {
		*n.Crossed = crossed
	}
	return c, nil
}

func (s *Store) Conversation(ctx context.Context, id string) (domain.Conversation, error) {
	c, err := scanConversation(s.pool.QueryRow(ctx, `SELECT `+convCols+` FROM conversations WHERE id = $1`, id))
	return c, notFound(err, domain.ErrNotFound)
}

// SetMode is one conditional UPDATE: it changes only a conversation in
// another mode, so "changed" is exact even when two calls race.
func (s *Store) SetMode(ctx context.Context, conversationID string, m domain.Mode) (bool, error) {
	if err := store.CheckMode(m); err != nil {
		return false, fmt.Errorf("set mode: %w", err)
	}
	// A human taking over ends the wait for one, and hands the
	// conversation off (its outcome). This takeover has no dashboard user
	// (TakeOver records one), and a release to the AI ends the
	// assignment: either way the assignee is cleared.
	query, args := `UPDATE conversations SET mode = $1, assignee_id = '', assignee_name = ''
		WHERE id = $2 AND mode <> $1`, []any{m, conversationID}
	if m == domain.ModeHuman {
		query = `UPDATE conversations SET mode = $1, waiting = false, waiting_since = NULL,
			assignee_id = '', assignee_name = '', ` + handOffSet(3) + `
			WHERE id = $2 AND mode <> $1`
		args = append(args, handOffArgs(now())...)
	}
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("set mode: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		// Unchanged, or no such conversation: tell them apart.
		if _, err := s.Conversation(ctx, conversationID); err != nil {
			return false, fmt.Errorf("set mode: %w", err)
		}
		return false, nil
	}
	return true, nil
}

func (s *Store) SetWaiting(ctx context.Context, conversationID string, waiting bool) (bool, error) {
	var since *time.Time // NULL: no longer waiting
	if waiting {
		t := now()
		since = &t
	}
	// A wait that begins hands the conversation off (handOffSet); one
	// that ends ($3 NULL) changes neither the handoff nor the outcome.
	asked, notAsked := store.HandedOffOutcomes()
	tag, err := s.pool.Exec(ctx, `UPDATE conversations SET waiting = $1, waiting_since = $3,
			handed_at = coalesce(handed_at, $3),
			outcome = CASE WHEN $3::timestamptz IS NULL THEN outcome WHEN asked THEN $4 ELSE $5 END
		WHERE id = $2 AND waiting <> $1`,
		waiting, conversationID, since, string(asked), string(notAsked))
	if err != nil {
		return false, fmt.Errorf("set waiting: %w", dbErr(err))
	}
	if tag.RowsAffected() == 0 {
		// Unchanged, or no such conversation: tell them apart.
		if _, err := s.Conversation(ctx, conversationID); err != nil {
			return false, err
		}
		return false, nil
	}
	return true, nil
}

// TakeOver is a compare-and-set: the UPDATE changes the row only while the
// AI still has it. Two operators racing (on any instances) are ordered by
// the row lock; the second UPDATE then re-checks the committed row, finds
// it human and changes nothing, and the read after it names the winner.
func (s *Store) TakeOver(ctx context.Context, conversationID, userID, userName string) (domain.Conversation, bool, error) {
	for {
		c, err := scanConversation(s.pool.QueryRow(ctx, `UPDATE conversations
			SET mode = 'human', waiting = false, waiting_since = NULL, assignee_id = $1, assignee_name = $2, `+handOffSet(4)+`
			WHERE id = $3 AND mode = 'ai'
			RETURNING `+convCols, append([]any{userID, userName, conversationID}, handOffArgs(now())...)...))
		if err == nil {
			return c, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return domain.Conversation{}, false, fmt.Errorf("take over: %w", dbErr(err))
		}
		c, err = s.Conversation(ctx, conversationID)
		if err != nil {
			return domain.Conversation{}, false, fmt.Errorf("take over: %w", err)
		}
		if c.Mode == domain.ModeHuman {
			return c, false, nil // someone holds it already; c names them
		}
		// Handed back to the AI between the two statements: the holder is
		// gone, so try again rather than report a loss to nobody.
	}
}
