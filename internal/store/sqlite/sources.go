package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

const sourceCols = `id, account_id, agent_id, kind, url, max_pages, sync_every, status, pages, chars, error, note, synced_at, next_sync_at, created_at, error_reasons, note_reasons`

func scanSource(sc scanner) (domain.Source, error) {
	var src domain.Source
	var every, created int64
	var synced, next sql.NullInt64
	var errReasons, noteReasons string
	if err := sc.Scan(&src.ID, &src.AccountID, &src.AgentID, &src.Kind, &src.URL, &src.MaxPages, &every, &src.Status,
		&src.Pages, &src.Chars, &src.Error, &src.Note, &synced, &next, &created, &errReasons, &noteReasons); err != nil {
		return domain.Source{}, err
	}
	src.ErrorReasons, src.NoteReasons = store.ParseReasons(errReasons), store.ParseReasons(noteReasons)
	src.SyncEvery = time.Duration(every) * time.Millisecond
	src.SyncedAt, src.NextSyncAt = nullMillis(synced), nullMillis(next)
	src.CreatedAt = fromMillis(created)
	return src, nil
}

// nullMillis reads a time that may be NULL (zero: never).
func nullMillis(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromMillis(n.Int64)
}

// toNullMillis writes a time that may be zero as NULL.
func toNullMillis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: millis(t), Valid: true}
}

func (s *Store) CreateSource(ctx context.Context, n store.NewSource) (domain.Source, error) {
	src, err := n.Build(now())
	if err != nil {
		return domain.Source{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM agents WHERE id = ? AND account_id = ?`, n.AgentID, n.AccountID).Scan(&one); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sources (`+sourceCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, '', '', NULL, ?, ?, '[]', '[]')`,
			src.ID, src.AccountID, src.AgentID, src.Kind, src.URL, src.MaxPages, src.SyncEvery.Milliseconds(), src.Status,
			toNullMillis(src.NextSyncAt), millis(src.CreatedAt))
		return err
	})
	if err != nil {
		return domain.Source{}, fmt.Errorf("create source: %w", constraintErr(err))
	}
	return src, nil
}

func (s *Store) Source(ctx context.Context, accountID, sourceID string) (domain.Source, error) {
	src, err := scanSource(s.queryRow(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = ? AND account_id = ?`, sourceID, accountID))
	return src, notFound(err, domain.ErrNotFound)
}

func (s *Store) SourceByID(ctx context.Context, sourceID string) (domain.Source, error) {
	src, err := scanSource(s.queryRow(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = ?`, sourceID))
	return src, notFound(err, domain.ErrNotFound)
}

func (s *Store) Sources(ctx context.Context, accountID, agentID string) ([]domain.Source, error) {
	return s.sources(ctx, `SELECT `+sourceCols+` FROM sources WHERE agent_id = ? AND account_id = ? ORDER BY created_at, rowid`, agentID, accountID)
}

func (s *Store) DueSources(ctx context.Context, at time.Time, limit int) ([]domain.Source, error) {
	return s.sources(ctx, `SELECT `+sourceCols+` FROM sources WHERE next_sync_at IS NOT NULL AND next_sync_at <= ?
		ORDER BY next_sync_at, rowid LIMIT `+limitArg, millis(at), max(limit, 0))
}

func (s *Store) sources(ctx context.Context, query string, args ...any) ([]domain.Source, error) {
	return queryAll(ctx, s, scanSource, query, args...)
}

// bumpAgent moves the agent's version on: which pages answer changed.
func (s *Store) bumpAgent(ctx context.Context, tx *sql.Tx, agentID string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE agents SET updated_at = max(updated_at + 1, ?) WHERE id = ?`, millis(now()), agentID); err != nil {
		return err
	}
	s.invalidate(cacheEvent{what: forgetAgents}) // the agent's UpdatedAt moved
	return nil
}

func (s *Store) DeleteSource(ctx context.Context, accountID, sourceID string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var agentID string
		if err := tx.QueryRowContext(ctx, `DELETE FROM sources WHERE id = ? AND account_id = ? RETURNING agent_id`, sourceID, accountID).Scan(&agentID); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		return s.bumpAgent(ctx, tx, agentID) // its pages went with it (ON DELETE CASCADE)
	})
	if err != nil {
		return fmt.Errorf("delete source: %w", err)
	}
	return nil
}

func (s *Store) QueueSource(ctx context.Context, sourceID string, at time.Time) (domain.Source, error) {
	var src domain.Source
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if src, err = scanSource(tx.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = ?`, sourceID)); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if src.Status != domain.SourceSyncing {
			src.Status = domain.SourceQueued
		}
		src.NextSyncAt = store.NextSync(at, src.SyncEvery)
		_, err = tx.ExecContext(ctx, `UPDATE sources SET status = ?, next_sync_at = ? WHERE id = ?`, src.Status, toNullMillis(src.NextSyncAt), sourceID)
		return err
	})
	if err != nil {
		return domain.Source{}, fmt.Errorf("queue source: %w", err)
	}
	return src, nil
}

func (s *Store) StartSourceSync(ctx context.Context, sourceID string) error {
	return s.updateSource(ctx, "start source sync", `UPDATE sources SET status = 'syncing', pages = 0, error = '', error_reasons = '[]' WHERE id = ?`, sourceID)
}

func (s *Store) SetSourceProgress(ctx context.Context, sourceID string, pages int) error {
	return s.updateSource(ctx, "source progress", `UPDATE sources SET pages = ? WHERE id = ?`, pages, sourceID)
}

func (s *Store) FailSourceSync(ctx context.Context, sourceID string, f store.SourceFailure) error {
	if err := store.CheckText(sourceID, f.Error); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var every int64
		if err := tx.QueryRowContext(ctx, `SELECT sync_every FROM sources WHERE id = ?`, sourceID).Scan(&every); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		next := store.NextSync(f.At, time.Duration(every)*time.Millisecond)
		_, err := tx.ExecContext(ctx, `UPDATE sources SET status = 'failed', error = ?, error_reasons = ?,
			pages = (SELECT count(*) FROM source_pages WHERE source_id = sources.id), next_sync_at = ?
			WHERE id = ?`, f.Error, store.ReasonsJSON(f.Reasons), toNullMillis(next), sourceID)
		return err
	})
	if err != nil {
		return fmt.Errorf("fail source sync: %w", err)
	}
	return nil
}

// updateSource runs one UPDATE of a source's row; no row is ErrNotFound.
func (s *Store) updateSource(ctx context.Context, what, query string, args ...any) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (s *Store) ReplaceSourcePages(ctx context.Context, sourceID string, pages []domain.SourcePage, r store.SourceSync) error {
	if err := store.CheckText(sourceID, r.Note); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		// The source is read in the transaction that writes: deleted
		// meanwhile, the sync's pages have nowhere to go.
		src, err := scanSource(tx.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = ?`, sourceID))
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		pages, chars := store.BuildPages(src, pages)
		if _, err := tx.ExecContext(ctx, `DELETE FROM source_pages WHERE source_id = ?`, sourceID); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO source_pages (id, source_id, agent_id, position, url, title, text, lang, chars)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		total := 0
		for i, p := range pages {
			if _, err := ins.ExecContext(ctx, p.ID, p.SourceID, p.AgentID, i, p.URL, p.Title, p.Text, p.Lang, chars[i]); err != nil {
				return err
			}
			total += chars[i]
		}
		at := store.StoredTime(r.At)
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET status = 'ready', pages = ?, chars = ?, error = '', error_reasons = '[]',
			note = ?, note_reasons = ?, synced_at = ?, next_sync_at = ? WHERE id = ?`,
			len(pages), total, r.Note, store.ReasonsJSON(r.NoteReasons), millis(at), toNullMillis(store.NextSync(at, src.SyncEvery)), sourceID); err != nil {
			return err
		}
		return s.bumpAgent(ctx, tx, src.AgentID)
	})
	if err != nil {
		return fmt.Errorf("replace source pages: %w", constraintErr(err))
	}
	return nil
}

func (s *Store) AgentSourcePages(ctx context.Context, agentID string) ([]domain.SourcePage, error) {
	return queryAll(ctx, s, func(sc scanner) (domain.SourcePage, error) {
		var p domain.SourcePage
		err := sc.Scan(&p.ID, &p.SourceID, &p.AgentID, &p.URL, &p.Title, &p.Text, &p.Lang)
		return p, err
	}, `SELECT p.id, p.source_id, p.agent_id, p.url, p.title, p.text, p.lang
		FROM source_pages p JOIN sources s ON s.id = p.source_id
		WHERE p.agent_id = ? ORDER BY s.created_at, s.rowid, p.position`, agentID)
}

func (s *Store) SourcePages(ctx context.Context, sourceID string) ([]store.SourcePageInfo, error) {
	return queryAll(ctx, s, func(sc scanner) (store.SourcePageInfo, error) {
		var p store.SourcePageInfo
		err := sc.Scan(&p.ID, &p.URL, &p.Title, &p.Chars)
		return p, err
	}, `SELECT id, url, title, chars FROM source_pages WHERE source_id = ? ORDER BY position`, sourceID)
}
