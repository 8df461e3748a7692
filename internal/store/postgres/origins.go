package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/store"
)

// RecordOrigin upserts the origin's row (only while the agent exists) and
// trims the agent's rows to the bounds, in one transaction.
func (s *Store) RecordOrigin(ctx context.Context, o store.SeenOrigin) error {
	if err := store.CheckText(o.AgentID, o.Origin); err != nil {
		return err
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO agent_origins (agent_id, origin, count, last_seen_at)
			SELECT id, $2, $3, $4 FROM agents WHERE id = $1
			ON CONFLICT (agent_id, origin) DO UPDATE SET count = agent_origins.count + excluded.count,
				last_seen_at = greatest(agent_origins.last_seen_at, excluded.last_seen_at)`,
			o.AgentID, o.Origin, o.Count, o.LastSeen.UTC()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM agent_origins WHERE agent_id = $1 AND (last_seen_at < $2
			OR origin NOT IN (SELECT origin FROM agent_origins WHERE agent_id = $1
				ORDER BY last_seen_at DESC, origin LIMIT $3))`,
			o.AgentID, o.LastSeen.Add(-store.SeenOriginsKept).UTC(), store.MaxSeenOrigins)
		return err
	})
	if err != nil {
		return fmt.Errorf("record origin: %w", err)
	}
	return nil
}

// RecentOrigins reads the agent's rows through agents, so another
// account's agent has none.
func (s *Store) RecentOrigins(ctx context.Context, accountID, agentID string, since time.Time) ([]store.SeenOrigin, error) {
	if err := store.CheckText(accountID, agentID); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT o.origin, o.count, o.last_seen_at FROM agent_origins o
		JOIN agents a ON a.id = o.agent_id
		WHERE a.account_id = $1 AND o.agent_id = $2 AND o.last_seen_at >= $3
		ORDER BY o.last_seen_at DESC, o.origin LIMIT $4`, accountID, agentID, since.UTC(), store.MaxSeenOrigins)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.SeenOrigin, error) {
		o := store.SeenOrigin{AgentID: agentID}
		err := row.Scan(&o.Origin, &o.Count, &o.LastSeen)
		o.LastSeen = o.LastSeen.UTC()
		return o, err
	})
	if err != nil {
		return nil, fmt.Errorf("recent origins: %w", dbErr(err))
	}
	return out, nil
}
