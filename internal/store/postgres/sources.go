package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

const sourceCols = `id, account_id, agent_id, kind, url, max_pages, sync_every, status, pages, chars, error, note, synced_at, next_sync_at, created_at, error_reasons, note_reasons`

func scanSource(row pgx.Row) (domain.Source, error) {
	var src domain.Source
	var every int64
	var synced, next *time.Time
	var errReasons, noteReasons string
	if err := row.Scan(&src.ID, &src.AccountID, &src.AgentID, &src.Kind, &src.URL, &src.MaxPages, &every, &src.Status,
		&src.Pages, &src.Chars, &src.Error, &src.Note, &synced, &next, &src.CreatedAt, &errReasons, &noteReasons); err != nil {
		return domain.Source{}, err
	}
	src.ErrorReasons, src.NoteReasons = store.ParseReasons(errReasons), store.ParseReasons(noteReasons)
	src.SyncEvery = time.Duration(every) * time.Millisecond
	src.SyncedAt, src.NextSyncAt = nullTime(synced), nullTime(next)
	src.CreatedAt = ms(src.CreatedAt)
	return src, nil
}

// nullTime reads a time that may be NULL (zero: never).
func nullTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return ms(*t)
}

// toNullTime writes a time that may be zero as NULL.
func toNullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = ms(t)
	return &t
}

func (s *Store) CreateSource(ctx context.Context, n store.NewSource) (domain.Source, error) {
	src, err := n.Build(now())
	if err != nil {
		return domain.Source{}, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM agents WHERE id = $1 AND account_id = $2`, n.AgentID, n.AccountID).Scan(&one); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		_, err := tx.Exec(ctx, `INSERT INTO sources (`+sourceCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 0, '', '', NULL, $9, $10, '[]', '[]')`,
			src.ID, src.AccountID, src.AgentID, src.Kind, src.URL, src.MaxPages, src.SyncEvery.Milliseconds(), src.Status,
			toNullTime(src.NextSyncAt), src.CreatedAt)
		return err
	})
	if err != nil {
		return domain.Source{}, fmt.Errorf("create source: %w", err)
	}
	return src, nil
}

func (s *Store) Source(ctx context.Context, accountID, sourceID string) (domain.Source, error) {
	src, err := scanSource(s.pool.QueryRow(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = $1 AND account_id = $2`, sourceID, accountID))
	return src, notFound(err, domain.ErrNotFound)
}

func (s *Store) SourceByID(ctx context.Context, sourceID string) (domain.Source, error) {
	src, err := scanSource(s.pool.QueryRow(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = $1`, sourceID))
	return src, notFound(err, domain.ErrNotFound)
}

func (s *Store) Sources(ctx context.Context, accountID, agentID string) ([]domain.Source, error) {
	return s.sources(ctx, `SELECT `+sourceCols+` FROM sources WHERE agent_id = $1 AND account_id = $2 ORDER BY created_at, ord`, agentID, accountID)
}

func (s *Store) DueSources(ctx context.Context, at time.Time, limit int) ([]domain.Source, error) {
	return s.sources(ctx, `SELECT `+sourceCols+` FROM sources WHERE next_sync_at IS NOT NULL AND next_sync_at <= $1
		ORDER BY next_sync_at, ord LIMIT $2`, ms(at), max(limit, 0))
}

func (s *Store) sources(ctx context.Context, query string, args ...any) ([]domain.Source, error) {
	rows, _ := s.pool.Query(ctx, query, args...)
	out, err := pgx.CollectRows(rows, rowTo(scanSource))
	if err != nil {
		return nil, fmt.Errorf("sources: %w", dbErr(err))
	}
	return out, nil
}

// bumpAgent moves the agent's version on: which pages answer changed. The
// UPDATE locks the agent's row, after the source's (every path here locks
// the source first, so two of them cannot wait on each other).
func bumpAgent(ctx context.Context, tx pgx.Tx, agentID string) error {
	_, err := tx.Exec(ctx, `UPDATE agents SET updated_at = greatest(updated_at + interval '1 millisecond', $1) WHERE id = $2`, now(), agentID)
	return err
}

func (s *Store) DeleteSource(ctx context.Context, accountID, sourceID string) error {
	err := s.write(ctx, func(tx pgx.Tx) error {
		var agentID string
		if err := tx.QueryRow(ctx, `DELETE FROM sources WHERE id = $1 AND account_id = $2 RETURNING agent_id`, sourceID, accountID).Scan(&agentID); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		return bumpAgent(ctx, tx, agentID) // its pages went with it (ON DELETE CASCADE)
	})
	if err != nil {
		return fmt.Errorf("delete source: %w", err)
	}
	return nil
}

// lockSource reads the source in tx, its row locked until tx ends: a
// delete or another sync's ending waits, then sees what this one did.
func lockSource(ctx context.Context, tx pgx.Tx, sourceID string) (domain.Source, error) {
	src, err := scanSource(tx.QueryRow(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = $1 FOR UPDATE`, sourceID))
	return src, notFound(err, domain.ErrNotFound)
}

func (s *Store) QueueSource(ctx context.Context, sourceID string, at time.Time) (domain.Source, error) {
	var src domain.Source
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		if src, err = lockSource(ctx, tx, sourceID); err != nil {
			return err
		}
		if src.Status != domain.SourceSyncing {
			src.Status = domain.SourceQueued
		}
		src.NextSyncAt = store.NextSync(at, src.SyncEvery)
		_, err = tx.Exec(ctx, `UPDATE sources SET status = $1, next_sync_at = $2 WHERE id = $3`, src.Status, toNullTime(src.NextSyncAt), sourceID)
		return err
	})
	if err != nil {
		return domain.Source{}, fmt.Errorf("queue source: %w", err)
	}
	return src, nil
}

func (s *Store) StartSourceSync(ctx context.Context, sourceID string) error {
	err := rowsAffected(s.pool.Exec(ctx, `UPDATE sources SET status = 'syncing', pages = 0, error = '', error_reasons = '[]' WHERE id = $1`, sourceID))
	if err != nil {
		return fmt.Errorf("start source sync: %w", err)
	}
	return nil
}

func (s *Store) SetSourceProgress(ctx context.Context, sourceID string, pages int) error {
	err := rowsAffected(s.pool.Exec(ctx, `UPDATE sources SET pages = $1 WHERE id = $2`, pages, sourceID))
	if err != nil {
		return fmt.Errorf("source progress: %w", err)
	}
	return nil
}

func (s *Store) FailSourceSync(ctx context.Context, sourceID string, f store.SourceFailure) error {
	err := s.write(ctx, func(tx pgx.Tx) error {
		src, err := lockSource(ctx, tx, sourceID)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sources SET status = 'failed', error = $1, error_reasons = $4,
			pages = (SELECT count(*) FROM source_pages WHERE source_id = $3), next_sync_at = $2
			WHERE id = $3`, f.Error, toNullTime(store.NextSync(f.At, src.SyncEvery)), sourceID, store.ReasonsJSON(f.Reasons))
		return err
	})
	if err != nil {
		return fmt.Errorf("fail source sync: %w", err)
	}
	return nil
}

func (s *Store) ReplaceSourcePages(ctx context.Context, sourceID string, pages []domain.SourcePage, r store.SourceSync) error {
	err := s.write(ctx, func(tx pgx.Tx) error {
		// Locked in the transaction that writes: deleted meanwhile, the
		// sync's pages have nowhere to go; deleted after, they go too.
		src, err := lockSource(ctx, tx, sourceID)
		if err != nil {
			return err
		}
		pages, chars := store.BuildPages(src, pages)
		if _, err := tx.Exec(ctx, `DELETE FROM source_pages WHERE source_id = $1`, sourceID); err != nil {
			return err
		}
		total := 0
		rows := make([][]any, len(pages))
		for i, p := range pages {
			rows[i] = []any{p.ID, p.SourceID, p.AgentID, i, p.URL, p.Title, p.Text, p.Lang, chars[i]}
			total += chars[i]
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"source_pages"},
			[]string{"id", "source_id", "agent_id", "position", "url", "title", "text", "lang", "chars"},
			pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		at := ms(r.At)
		if _, err := tx.Exec(ctx, `UPDATE sources SET status = 'ready', pages = $1, chars = $2, error = '', error_reasons = '[]',
			note = $3, note_reasons = $7, synced_at = $4, next_sync_at = $5 WHERE id = $6`,
			len(pages), total, r.Note, at, toNullTime(store.NextSync(at, src.SyncEvery)), sourceID, store.ReasonsJSON(r.NoteReasons)); err != nil {
			return err
		}
		return bumpAgent(ctx, tx, src.AgentID)
	})
	if err != nil {
		return fmt.Errorf("replace source pages: %w", err)
	}
	return nil
}

func (s *Store) AgentSourcePages(ctx context.Context, agentID string) ([]domain.SourcePage, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.id, p.source_id, p.agent_id, p.url, p.title, p.text, p.lang
		FROM source_pages p JOIN sources s ON s.id = p.source_id
		WHERE p.agent_id = $1 ORDER BY s.created_at, s.ord, p.position`, agentID)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.SourcePage, error) {
		var p domain.SourcePage
		err := row.Scan(&p.ID, &p.SourceID, &p.AgentID, &p.URL, &p.Title, &p.Text, &p.Lang)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("agent source pages: %w", err)
	}
	return out, nil
}

func (s *Store) SourcePages(ctx context.Context, sourceID string) ([]store.SourcePageInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, url, title, chars FROM source_pages WHERE source_id = $1 ORDER BY position`, sourceID)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.SourcePageInfo, error) {
		var p store.SourcePageInfo
		err := row.Scan(&p.ID, &p.URL, &p.Title, &p.Chars)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("source pages: %w", err)
	}
	return out, nil
}
