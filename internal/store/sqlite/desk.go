package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/store"
)

const cannedCols = `id, account_id, shortcut, language, text, created_at, updated_at`

func scanCanned(sc scanner) (store.CannedReply, error) {
	var c store.CannedReply
	var created, updated int64
	if err := sc.Scan(&c.ID, &c.AccountID, &c.Shortcut, &c.Language, &c.Text, &created, &updated); err != nil {
		return store.CannedReply{}, err
	}
	c.CreatedAt, c.UpdatedAt = fromMillis(created), fromMillis(updated)
	return c, nil
}

// CreateCannedReply counts the account's replies and inserts in one
// write, so concurrent creations cannot pass the bound together.
func (s *Store) CreateCannedReply(ctx context.Context, n store.NewCannedReply) (store.CannedReply, error) {
	c, err := n.Build(now())
	if err != nil {
		return store.CannedReply{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var count int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM canned_replies WHERE account_id = ?`, c.AccountID).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxCannedReplies {
			return store.ErrCannedLimit
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO canned_replies (`+cannedCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.AccountID, c.Shortcut, c.Language, c.Text, millis(c.CreatedAt), millis(c.UpdatedAt))
		return err
	})
	if err != nil {
		return store.CannedReply{}, fmt.Errorf("create canned reply: %w", constraintErr(err))
	}
	return c, nil
}

func (s *Store) CannedReply(ctx context.Context, accountID, id string) (store.CannedReply, error) {
	c, err := scanCanned(s.queryRow(ctx, `SELECT `+cannedCols+` FROM canned_replies WHERE id = ? AND account_id = ?`, id, accountID))
	return c, notFound(err, domain.ErrNotFound)
}

func (s *Store) CannedReplies(ctx context.Context, accountID string) ([]store.CannedReply, error) {
	rows, err := s.query(ctx, `SELECT `+cannedCols+` FROM canned_replies WHERE account_id = ? ORDER BY shortcut, language`, accountID)
	if err != nil {
		return nil, fmt.Errorf("canned replies: %w", err)
	}
	defer rows.Close()
	out := []store.CannedReply{}
	for rows.Next() {
		c, err := scanCanned(rows)
		if err != nil {
			return nil, fmt.Errorf("canned replies: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s *Store) UpdateCannedReply(ctx context.Context, accountID, id string, p store.CannedReplyPatch) (store.CannedReply, error) {
	if err := store.CheckText(p.Shortcut, p.Language, p.Text); err != nil {
		return store.CannedReply{}, err
	}
	at := now()
	var c store.CannedReply
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE canned_replies SET shortcut = ?, language = ?, text = ?, updated_at = ? WHERE id = ? AND account_id = ?`,
			p.Shortcut, p.Language, p.Text, millis(at), id, accountID)
		if err != nil {
			return err
		}
		c, err = scanCanned(tx.QueryRowContext(ctx, `SELECT `+cannedCols+` FROM canned_replies WHERE id = ? AND account_id = ?`, id, accountID))
		return notFound(err, domain.ErrNotFound)
	})
	if err != nil {
		return store.CannedReply{}, fmt.Errorf("update canned reply: %w", constraintErr(err))
	}
	return c, nil
}

func (s *Store) DeleteCannedReply(ctx context.Context, accountID, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM canned_replies WHERE id = ? AND account_id = ?`, id, accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return domain.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete canned reply: %w", err)
	}
	return nil
}

const noteCols = `id, account_id, conversation_id, author_id, author_name, text, created_at`

func scanNote(sc scanner) (store.Note, error) {
	var n store.Note
	var created int64
	if err := sc.Scan(&n.ID, &n.AccountID, &n.ConversationID, &n.AuthorID, &n.AuthorName, &n.Text, &created); err != nil {
		return store.Note{}, err
	}
	n.CreatedAt = fromMillis(created)
	return n, nil
}

// AddNote checks the conversation is the account's and counts its notes
// in the write that inserts.
func (s *Store) AddNote(ctx context.Context, nn store.NewNote) (store.Note, error) {
	n, err := nn.Build(now())
	if err != nil {
		return store.Note{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE id = ? AND account_id = ?`, n.ConversationID, n.AccountID).Scan(&one); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		var count int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM conversation_notes WHERE conversation_id = ?`, n.ConversationID).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxNotesPerConversation {
			return store.ErrNoteLimit
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO conversation_notes (`+noteCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			n.ID, n.AccountID, n.ConversationID, n.AuthorID, n.AuthorName, n.Text, millis(n.CreatedAt))
		return err
	})
	if err != nil {
		return store.Note{}, fmt.Errorf("add note: %w", constraintErr(err))
	}
	return n, nil
}

func (s *Store) Notes(ctx context.Context, accountID, conversationID string) ([]store.Note, error) {
	rows, err := s.query(ctx, `SELECT `+noteCols+` FROM conversation_notes WHERE conversation_id = ? AND account_id = ? ORDER BY seq`, conversationID, accountID)
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	defer rows.Close()
	out := []store.Note{}
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, fmt.Errorf("notes: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
