package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/store"
)

func (s *Store) PutVectors(ctx context.Context, agentID, model string, vs []store.Vector) error {
	blobs := make([][]byte, len(vs))
	for i, v := range vs {
		b, err := store.EncodeVector(v.Vec)
		if err != nil {
			return err
		}
		blobs[i] = b
	}
	at := millis(store.Now())
	err := s.write(ctx, func(tx *sql.Tx) error {
		for i, v := range vs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO passage_vectors (agent_id, model, hash, vec, created_at)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id, model, hash) DO UPDATE SET vec = excluded.vec, created_at = excluded.created_at`,
				agentID, model, v.Hash, blobs[i], at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put vectors: %w", constraintErr(err))
	}
	return nil
}

func (s *Store) Vectors(ctx context.Context, agentID, model string) (map[string][]float32, error) {
	rows, err := s.query(ctx, `SELECT hash, vec FROM passage_vectors WHERE agent_id = ? AND model = ?`, agentID, model)
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
	return out, rows.Err()
}

func (s *Store) KeepVectors(ctx context.Context, agentID, model string, keep []string, before time.Time) (int, error) {
	kept := make(map[string]bool, len(keep))
	for _, h := range keep {
		kept[h] = true
	}
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx, `SELECT model, hash FROM passage_vectors WHERE agent_id = ? AND created_at < ?`, agentID, millis(before))
		if err != nil {
			return err
		}
		type key struct{ model, hash string }
		var gone []key
		for rows.Next() {
			var k key
			if err := rows.Scan(&k.model, &k.hash); err != nil {
				rows.Close()
				return err
			}
			if k.model != model || !kept[k.hash] {
				gone = append(gone, k)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, k := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM passage_vectors WHERE agent_id = ? AND model = ? AND hash = ?`, agentID, k.model, k.hash); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("keep vectors: %w", err)
	}
	return n, nil
}
