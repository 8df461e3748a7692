package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/store"
)

// touchAgent checks that the agent belongs to the account and bumps its
// updated_at: the version every instance's knowledge index is keyed on.
func touchAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string) error {
	res, err := tx.ExecContext(ctx, `UPDATE agents SET updated_at = max(updated_at + 1, ?) WHERE id = ? AND account_id = ?`,
		millis(now()), agentID, accountID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = domain.ErrNotFound
		}
		return err
	}
	return nil
}

// knowledgeSize counts an agent's knowledge as domain.SizeOf does, and the
// characters of its item with id item. SQLite's length() counts the
// characters of a text (code points), up to a NUL character, which
// knowledge does not have (domain.CheckKnowledge).
func knowledgeSize(ctx context.Context, tx *sql.Tx, agentID, item string) (all domain.KnowledgeSize, itemChars int, err error) {
	err = tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(`+knowledgeChars+`), 0),
		coalesce(sum(CASE WHEN id = ? THEN `+knowledgeChars+` END), 0)
		FROM knowledge WHERE agent_id = ?`, item, agentID).Scan(&all.Items, &all.Chars, &itemChars)
	return all, itemChars, err
}

const knowledgeChars = `length(question) + length(answer) + length(title) + length(text)`

func (s *Store) AddKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry, l domain.KnowledgeLimits) (domain.KnowledgeEntry, error) {
	if err := store.CheckText(accountID, agentID); err != nil {
		return domain.KnowledgeEntry{}, err
	}
	if err := store.CheckKnowledge(e); err != nil {
		return domain.KnowledgeEntry{}, err
	}
	e = store.NewKnowledge(e)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := touchAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		s.invalidate(cacheEvent{what: forgetAgents}) // the agent's UpdatedAt moved
		if l != (domain.KnowledgeLimits{}) {
			was, _, err := knowledgeSize(ctx, tx, agentID, "")
			if err != nil {
				return err
			}
			if err := store.CheckAddKnowledge(l, was, e); err != nil {
				return err
			}
		}
		var next int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(position) + 1, 0) FROM knowledge WHERE agent_id = ?`, agentID).Scan(&next); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO knowledge (`+knowledgeInsertCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			knowledgeArgs(agentID, next, e)...)
		return err
	})
	if err != nil {
		return domain.KnowledgeEntry{}, fmt.Errorf("add knowledge: %w", err)
	}
	return e, nil
}

func (s *Store) UpdateKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry, l domain.KnowledgeLimits) (domain.KnowledgeEntry, error) {
	if err := store.CheckText(accountID, agentID); err != nil {
		return domain.KnowledgeEntry{}, err
	}
	if err := store.CheckKnowledge(e); err != nil {
		return domain.KnowledgeEntry{}, err
	}
	e = store.WithKind(e)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := touchAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		s.invalidate(cacheEvent{what: forgetAgents}) // the agent's UpdatedAt moved
		var was domain.KnowledgeSize
		var old int
		if l != (domain.KnowledgeLimits{}) {
			var err error
			if was, old, err = knowledgeSize(ctx, tx, agentID, e.ID); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE knowledge SET kind = ?, question = ?, answer = ?, title = ?, text = ?, lang = ?
			WHERE id = ? AND agent_id = ?`, e.Kind, e.Question, e.Answer, e.Title, e.Text, e.Lang, e.ID, agentID)
		if err := oneRow(res, err); err != nil {
			return err
		}
		return store.CheckUpdateKnowledge(l, was, old, e)
	})
	if err != nil {
		return domain.KnowledgeEntry{}, fmt.Errorf("update knowledge: %w", err)
	}
	return e, nil
}

func (s *Store) DeleteKnowledge(ctx context.Context, accountID, agentID, itemID string) error {
	if err := store.CheckText(accountID, agentID, itemID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := touchAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		s.invalidate(cacheEvent{what: forgetAgents}) // the agent's UpdatedAt moved
		res, err := tx.ExecContext(ctx, `DELETE FROM knowledge WHERE id = ? AND agent_id = ?`, itemID, agentID)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("delete knowledge: %w", err)
	}
	return nil
}

// oneRow turns "no row affected" into domain.ErrNotFound. Returning an
// error also rolls back the agent's version bump.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.ErrNotFound
	}
	return nil
}
