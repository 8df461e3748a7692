package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

const agentCols = `id, account_id, chatbot_name, config, created_at, updated_at`

func scanAgent(row pgx.Row) (domain.Agent, error) {
	var a domain.Agent
	var config string
	if err := row.Scan(&a.ID, &a.AccountID, &a.ChatbotName, &config, &a.CreatedAt, &a.UpdatedAt); err != nil {
		return domain.Agent{}, err
	}
	a.Config = domain.DecodeAgentConfig([]byte(config))
	a.CreatedAt, a.UpdatedAt = ms(a.CreatedAt), ms(a.UpdatedAt)
	return a, nil
}

func (s *Store) CreateAgent(ctx context.Context, n store.NewAgent) (domain.Agent, error) {
	t := now()
	a, err := n.Build(t)
	if err != nil {
		return domain.Agent{}, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		if n.MaxAgents > 0 {
			// The account's row, locked, makes concurrent creations count
			// one after the other; the count is a statement of its own,
			// so (READ COMMITTED) it sees what the last holder of the
			// lock committed. FOR NO KEY UPDATE leaves rows that refer to
			// the account (conversations, users) free to be inserted.
			var one, agents int
			err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, n.AccountID).Scan(&one)
			if err != nil {
				return notFound(err, domain.ErrNotFound)
			}
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM agents WHERE account_id = $1`, n.AccountID).Scan(&agents); err != nil {
				return err
			}
			if err := n.Admit(agents); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO agents (`+agentCols+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			a.ID, a.AccountID, a.ChatbotName, string(a.Config.JSON()), t, t); err != nil {
			return err
		}
		if err := insertKnowledge(ctx, tx, a.ID, n.Knowledge); err != nil {
			return err
		}
		// An agent created without a key simply has none yet; CreateKey
		// adds one later.
		if n.Key != "" {
			_, err := tx.Exec(ctx, `INSERT INTO widget_keys (`+keyCols+`) VALUES ($1, $2, $3, true, $4)`,
				n.Key, a.ID, a.AccountID, t)
			return err
		}
		return nil
	})
	if err != nil {
		return domain.Agent{}, fmt.Errorf("create agent: %w", err)
	}
	return a, nil
}

func (s *Store) Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error) {
	a, err := scanAgent(s.pool.QueryRow(ctx,
		`SELECT `+agentCols+` FROM agents WHERE id = $1 AND account_id = $2`, agentID, accountID))
	return a, notFound(err, domain.ErrNotFound)
}

func (s *Store) Agents(ctx context.Context, accountID string) ([]domain.Agent, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+agentCols+` FROM agents WHERE account_id = $1 ORDER BY created_at, ord`, accountID)
	agents, err := pgx.CollectRows(rows, rowTo(scanAgent))
	if err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	return agents, nil
}

func (s *Store) UpdateAgent(ctx context.Context, accountID, agentID string, p store.AgentPatch) (domain.Agent, error) {
	config, err := p.Check()
	if err != nil {
		return domain.Agent{}, err
	}
	var a domain.Agent
	err = s.write(ctx, func(tx pgx.Tx) error {
		// Locked, so two edits at once cannot both derive their UpdatedAt
		// from the same previous one.
		var err error
		a, err = scanAgent(tx.QueryRow(ctx,
			`SELECT `+agentCols+` FROM agents WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE`, agentID, accountID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if p.ChatbotName != nil {
			a.ChatbotName = *p.ChatbotName
		}
		if p.Config != nil {
			a.Config = domain.DecodeAgentConfig([]byte(config))
		}
		a.UpdatedAt = store.NextVersion(a.UpdatedAt, now())
		if _, err := tx.Exec(ctx, `UPDATE agents SET chatbot_name = $1, config = $2, updated_at = $3 WHERE id = $4`,
			a.ChatbotName, string(a.Config.JSON()), a.UpdatedAt, a.ID); err != nil {
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
			if _, err := tx.Exec(ctx, `DELETE FROM knowledge WHERE agent_id = $1`, a.ID); err != nil {
				return err
			}
			return insertKnowledge(ctx, tx, a.ID, *p.Knowledge)
		}
		return nil
	})
	if err != nil {
		return domain.Agent{}, fmt.Errorf("update agent: %w", err)
	}
	return a, nil
}

// Knowledge.

const knowledgeInsertCols = `id, agent_id, position, kind, question, answer, title, text, lang`

const insertKnowledgeSQL = `INSERT INTO knowledge (` + knowledgeInsertCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

func knowledgeArgs(agentID string, position int, e domain.KnowledgeEntry) []any {
	e = store.WithKind(e)
	return []any{e.ID, agentID, position, e.Kind, e.Question, e.Answer, e.Title, e.Text, e.Lang}
}

// insertKnowledge stores entries in their order with fresh ids; ids a caller
// sent back are not trusted, they might repeat or belong elsewhere. One
// batch sends them all in a single round trip.
func insertKnowledge(ctx context.Context, tx pgx.Tx, agentID string, entries []domain.KnowledgeEntry) error {
	if len(entries) == 0 {
		return nil
	}
	var b pgx.Batch
	for i, e := range entries {
		e.ID = secret.KnowledgeID()
		b.Queue(insertKnowledgeSQL, knowledgeArgs(agentID, i, e)...)
	}
	return tx.SendBatch(ctx, &b).Close()
}

func (s *Store) Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT id, kind, question, answer, title, text, lang FROM knowledge WHERE agent_id = $1 ORDER BY position`, agentID)
	entries, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.KnowledgeEntry, error) {
		var e domain.KnowledgeEntry
		err := row.Scan(&e.ID, &e.Kind, &e.Question, &e.Answer, &e.Title, &e.Text, &e.Lang)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge: %w", err)
	}
	return entries, nil
}

// touchAgent checks that the agent belongs to the account and bumps its
// updated_at: the version every instance's knowledge index is keyed on. The
// UPDATE also locks the agent row until the transaction ends, which
// serializes knowledge edits of one agent (AddKnowledge's next position
// relies on it).
func touchAgent(ctx context.Context, tx pgx.Tx, accountID, agentID string) error {
	return rowsAffected(tx.Exec(ctx, `
		UPDATE agents SET updated_at = greatest(updated_at + interval '1 millisecond', $1)
		WHERE id = $2 AND account_id = $3`,
		now(), agentID, accountID))
}

// knowledgeSize counts an agent's knowledge as domain.SizeOf does, and the
// characters of its item with id item. Called after touchAgent (or another
// lock of the agent's row), so no other change of the agent's knowledge is
// under way, and under READ COMMITTED it sees the last one committed.
func knowledgeSize(ctx context.Context, tx pgx.Tx, agentID, item string) (all domain.KnowledgeSize, itemChars int, err error) {
	err = tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(`+knowledgeChars+`), 0),
		coalesce(sum(`+knowledgeChars+`) FILTER (WHERE id = $2), 0)
		FROM knowledge WHERE agent_id = $1`, agentID, item).Scan(&all.Items, &all.Chars, &itemChars)
	return all, itemChars, err
}

const knowledgeChars = `char_length(question) + char_length(answer) + char_length(title) + char_length(text)`

func (s *Store) AddKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry, l domain.KnowledgeLimits) (domain.KnowledgeEntry, error) {
	e = store.NewKnowledge(e)
	err := s.write(ctx, func(tx pgx.Tx) error {
		if err := touchAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
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
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(position) + 1, 0) FROM knowledge WHERE agent_id = $1`, agentID).Scan(&next); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, insertKnowledgeSQL, knowledgeArgs(agentID, next, e)...)
		return err
	})
	if err != nil {
		return domain.KnowledgeEntry{}, fmt.Errorf("add knowledge: %w", err)
	}
	return e, nil
}

func (s *Store) UpdateKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry, l domain.KnowledgeLimits) (domain.KnowledgeEntry, error) {
	e = store.WithKind(e)
	err := s.write(ctx, func(tx pgx.Tx) error {
		if err := touchAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		var was domain.KnowledgeSize
		var old int
		if l != (domain.KnowledgeLimits{}) {
			var err error
			if was, old, err = knowledgeSize(ctx, tx, agentID, e.ID); err != nil {
				return err
			}
		}
		// No row changed rolls the version bump back with it.
		err := rowsAffected(tx.Exec(ctx, `
			UPDATE knowledge SET kind = $1, question = $2, answer = $3, title = $4, text = $5, lang = $6
			WHERE id = $7 AND agent_id = $8`, e.Kind, e.Question, e.Answer, e.Title, e.Text, e.Lang, e.ID, agentID))
		if err != nil {
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
	err := s.write(ctx, func(tx pgx.Tx) error {
		if err := touchAgent(ctx, tx, accountID, agentID); err != nil {
			return err
		}
		return rowsAffected(tx.Exec(ctx, `DELETE FROM knowledge WHERE id = $1 AND agent_id = $2`, itemID, agentID))
	})
	if err != nil {
		return fmt.Errorf("delete knowledge: %w", err)
	}
	return nil
}

// Widget keys.

const keyCols = `key, agent_id, account_id, active, created_at`

func scanKey(row pgx.Row) (domain.WidgetKey, error) {
	var k domain.WidgetKey
	if err := row.Scan(&k.Key, &k.AgentID, &k.AccountID, &k.Active, &k.CreatedAt); err != nil {
		return domain.WidgetKey{}, err
	}
	k.CreatedAt = ms(k.CreatedAt)
	return k, nil
}

// CreateKey inserts only if the agent is the account's: the INSERT ...
// SELECT finds no agent row otherwise and inserts nothing.
func (s *Store) CreateKey(ctx context.Context, accountID, agentID, key string) (domain.WidgetKey, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `
		INSERT INTO widget_keys (`+keyCols+`)
		SELECT $1, id, account_id, true, $2 FROM agents WHERE id = $3 AND account_id = $4
		RETURNING `+keyCols, key, now(), agentID, accountID))
	if err != nil {
		return domain.WidgetKey{}, fmt.Errorf("create key: %w", notFound(err, domain.ErrNotFound))
	}
	return k, nil
}

// RotateKey locks the agent's row first, so concurrent rotations run one
// after the other and (READ COMMITTED) each one's UPDATE sees the key the
// previous one committed. FOR NO KEY UPDATE does not block widget_keys'
// foreign-key checks on the agent.
func (s *Store) RotateKey(ctx context.Context, accountID, agentID, key string) (domain.WidgetKey, error) {
	var k domain.WidgetKey
	err := s.write(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM agents WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE`, agentID, accountID).Scan(&one)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `UPDATE widget_keys SET active = false WHERE agent_id = $1 AND active`, agentID); err != nil {
			return err
		}
		// Stamped after the lock, so the active key is also the newest.
		k, err = scanKey(tx.QueryRow(ctx, `
			INSERT INTO widget_keys (`+keyCols+`) VALUES ($1, $2, $3, true, $4)
			RETURNING `+keyCols, key, agentID, accountID, now()))
		return err
	})
	if err != nil {
		return domain.WidgetKey{}, fmt.Errorf("rotate key: %w", dbErr(err))
	}
	return k, nil
}

func (s *Store) Keys(ctx context.Context, accountID, agentID string) ([]domain.WidgetKey, error) {
	// Checked first so another account's agent is ErrNotFound rather than
	// an empty list.
	var one int
	err := s.pool.QueryRow(ctx, `SELECT 1 FROM agents WHERE id = $1 AND account_id = $2`, agentID, accountID).Scan(&one)
	if err != nil {
		return nil, notFound(err, domain.ErrNotFound)
	}
	rows, _ := s.pool.Query(ctx,
		`SELECT `+keyCols+` FROM widget_keys WHERE agent_id = $1 ORDER BY created_at, ord`, agentID)
	keys, err := pgx.CollectRows(rows, rowTo(scanKey))
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return keys, nil
}

func (s *Store) SetKeyActive(ctx context.Context, accountID, key string, active bool) (domain.WidgetKey, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `
		UPDATE widget_keys SET active = $1 WHERE key = $2 AND account_id = $3
		RETURNING `+keyCols, active, key, accountID))
	if err != nil {
		return domain.WidgetKey{}, notFound(err, domain.ErrNotFound)
	}
	return k, nil
}

func (s *Store) AgentByKey(ctx context.Context, key string) (domain.Agent, error) {
	a, err := scanAgent(s.pool.QueryRow(ctx, `
		SELECT `+agentCols+` FROM agents
		WHERE id = (SELECT agent_id FROM widget_keys WHERE key = $1 AND active)`, key))
	return a, notFound(err, domain.ErrKeyInvalid)
}
