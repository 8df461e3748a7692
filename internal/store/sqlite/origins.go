package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/store"
)

// RecordOrigin upserts the origin's row (only while the agent exists) and
// trims the agent's rows to the bounds, in one write transaction.
func (s *Store) RecordOrigin(ctx context.Context, o store.SeenOrigin) error {
	if err := store.CheckText(o.AgentID, o.Origin); err != nil {
		return err
	}
	at := millis(o.LastSeen)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO agent_origins (agent_id, origin, count, last_seen_at)
			SELECT id, ?, ?, ? FROM agents WHERE id = ?
			ON CONFLICT (agent_id, origin) DO UPDATE SET count = count + excluded.count,
				last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
			o.Origin, o.Count, at, o.AgentID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM agent_origins WHERE agent_id = ? AND (last_seen_at < ?
			OR origin NOT IN (SELECT origin FROM agent_origins WHERE agent_id = ?
				ORDER BY last_seen_at DESC, origin LIMIT `+limitArg+`))`,
			o.AgentID, millis(o.LastSeen.Add(-store.SeenOriginsKept)), o.AgentID, store.MaxSeenOrigins)
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
	rows, err := s.query(ctx, `SELECT o.origin, o.count, o.last_seen_at FROM agent_origins o
		JOIN agents a ON a.id = o.agent_id
		WHERE a.account_id = ? AND o.agent_id = ? AND o.last_seen_at >= ?
		ORDER BY o.last_seen_at DESC, o.origin LIMIT `+limitArg, accountID, agentID, millis(since), store.MaxSeenOrigins)
	if err != nil {
		return nil, fmt.Errorf("recent origins: %w", err)
	}
	defer rows.Close()
	var out []store.SeenOrigin
	for rows.Next() {
		o := store.SeenOrigin{AgentID: agentID}
		var at int64
		if err := rows.Scan(&o.Origin, &o.Count, &at); err != nil {
			return nil, fmt.Errorf("recent origins: %w", err)
		}
		o.LastSeen = fromMillis(at)
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recent origins: %w", err)
	}
	return out, nil
}
