package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/store"
)

func (s *Store) PutVectors(ctx context.Context, agentID, model string, vs []store.Vector) error {
	batch := &pgx.Batch{}
	at := now()
	for _, v := range vs {
		b, err := store.EncodeVector(v.Vec)
		if err != nil {
			return err
		}
		batch.Queue(`INSERT INTO passage_vectors (agent_id, model, hash, vec, created_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (agent_id, model, hash) DO UPDATE SET vec = excluded.vec, created_at = excluded.created_at`,
			agentID, model, v.Hash, b, at)
	}
	if batch.Len() == 0 {
		return nil
	}
	err := s.write(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, batch).Close() })
	if err != nil {
		return fmt.Errorf("put vectors: %w", dbErr(err))
	}
	return nil
}

func (s *Store) Vectors(ctx context.Context, agentID, model string) (map[string][]float32, error) {
	rows, err := s.pool.Query(ctx, `SELECT hash, vec FROM passage_vectors WHERE agent_id = $1 AND model = $2`, agentID, model)
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var hash string
		var b []byte
		if err := rows.Scan(&hash, &b); err != nil {
			return nil, fmt.Errorf("vectors: %w", err)
		}
		if v := store.DecodeVector(b); v != nil {
			out[hash] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	return out, nil
}

func (s *Store) KeepVectors(ctx context.Context, agentID, model string, keep []string, before time.Time) (int, error) {
	if keep == nil {
		keep = []string{}
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM passage_vectors WHERE agent_id = $1 AND created_at < $4 AND (model <> $2 OR NOT (hash = ANY($3)))`, agentID, model, keep, before)
	if err != nil {
		return 0, fmt.Errorf("keep vectors: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
