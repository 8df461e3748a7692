package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

const agentCols = `id, account_id, chatbot_name, config, created_at, updated_at`

func scanAgent(sc scanner) (domain.Agent, error) {
	var a domain.Agent
	var config string
	var created, updated int64
	if err := sc.Scan(&a.ID, &a.AccountID, &a.ChatbotName, &config, &created, &updated); err != nil {
		return domain.Agent{}, err
	}
	a.Config = domain.DecodeAgentConfig([]byte(config))
	a.CreatedAt = fromMillis(created)
	a.UpdatedAt = fromMillis(updated)
	return a, nil
}

func (s *Store) CreateAgent(ctx context.Context, n store.NewAgent) (domain.Agent, error) {
	t := now()
	a, err := n.Build(t)
	if err != nil {
		return domain.Agent{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if n.MaxAgents > 0 {
			// The one writer makes count-then-insert exact.
			var agents int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM agents WHERE account_id = ?`, n.AccountID).Scan(&agents); err != nil {
				return err
			}
			if err := n.Admit(agents); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO agents (`+agentCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
			a.ID, a.AccountID, a.ChatbotName, string(a.Config.JSON()), millis(t), millis(t)); err != nil {
			return err
		}
		if err := insertKnowledge(ctx, tx, a.ID, n.Knowledge); err != nil {
			return err
		}
		// An agent created without a key simply has none yet; CreateKey
		// adds one later.
		if n.Key != "" {
			return insertKey(ctx, tx, domain.WidgetKey{
				Key: n.Key, AgentID: a.ID, AccountID: a.AccountID, Active: true, CreatedAt: t,
			})
		}
		return nil
	})
	if err != nil {
		return domain.Agent{}, fmt.Errorf("create agent: %w", constraintErr(err))
	}
	return a, nil
}

func (s *Store) Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error) {
	a, err := scanAgent(s.queryRow(ctx,
		`SELECT `+agentCols+` FROM agents WHERE id = ? AND account_id = ?`, agentID, accountID))
	return a, notFound(err, domain.ErrNotFound)
}

func (s *Store) Agents(ctx context.Context, accountID string) ([]domain.Agent, error) {
	// rowid follows insertion, so it orders agents created in the same
	// millisecond.
	return queryAll(ctx, s, scanAgent, `SELECT `+agentCols+` FROM agents WHERE account_id = ? ORDER BY created_at, rowid`, accountID)
}

func (s *Store) UpdateAgent(ctx context.Context, accountID, agentID string, p store.AgentPatch) (domain.Agent, error) {
	if err := store.CheckText(accountID, agentID); err != nil {
		return domain.Agent{}, err
	}
	config, err := p.Check()
	if err != nil {
		return domain.Agent{}, err
	}
	var a domain.Agent
	err = s.write(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = scanAgent(tx.QueryRowContext(ctx,
			`SELECT `+agentCols+` FROM agents WHERE id = ? AND account_id = ?`, agentID, accountID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		s.invalidate(cacheEvent{what: forgetAgents})
		if p.ChatbotName != nil {
			a.ChatbotName = *p.ChatbotName
		}
		if p.Config != nil {
			a.Config = domain.DecodeAgentConfig([]byte(config))
		}
		a.UpdatedAt = store.NextVersion(a.UpdatedAt, now())
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET chatbot_name = ?, config = ?, updated_at = ? WHERE id = ?`,
			a.ChatbotName, string(a.Config.JSON()), millis(a.UpdatedAt), a.ID); err != nil {
			return err
		}
		if p.Knowledge != nil {
			if p.KnowledgeLimits != (domain.KnowledgeLimits{}) {
				was, _, err := knowledgeSize(ctx, tx, a.ID, "")
				if err != nil {
					return err
				}
				if err := p.KnowledgeLimits.Check(was, domain.SizeOf(*p.Knowledge)); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge WHERE agent_id = ?`, a.ID); err != nil {
				return err
			}
			return insertKnowledge(ctx, tx, a.ID, *p.Knowledge)
		}
		return nil
	})
	if err != nil {
		return domain.Agent{}, fmt.Errorf("update agent: %w", constraintErr(err))
	}
	return a, nil
}

// insertKnowledge stores entries in their order with fresh ids; ids a caller
// sent back are not trusted, they might repeat or belong elsewhere.
func insertKnowledge(ctx context.Context, tx *sql.Tx, agentID string, entries []domain.KnowledgeEntry) error {
	if len(entries) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO knowledge (`+knowledgeInsertCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, e := range entries {
		e.ID = secret.KnowledgeID()
		if _, err := stmt.ExecContext(ctx, knowledgeArgs(agentID, i, e)...); err != nil {
			return err
		}
	}
	return nil
}

const knowledgeInsertCols = `id, agent_id, position, kind, question, answer, title, text, lang`

func knowledgeArgs(agentID string, position int, e domain.KnowledgeEntry) []any {
	e = store.WithKind(e)
	return []any{e.ID, agentID, position, e.Kind, e.Question, e.Answer, e.Title, e.Text, e.Lang}
}

func (s *Store) Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error) {
	return queryAll(ctx, s, scanKnowledge,
		`SELECT id, kind, question, answer, title, text, lang FROM knowledge WHERE agent_id = ? ORDER BY position`, agentID)
}

func scanKnowledge(sc scanner) (domain.KnowledgeEntry, error) {
	var e domain.KnowledgeEntry
	err := sc.Scan(&e.ID, &e.Kind, &e.Question, &e.Answer, &e.Title, &e.Text, &e.Lang)
	return e, err
}
