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
		if err := belowLimit(ctx, tx, store.MaxCannedReplies, store.ErrCannedLimit,
			`SELECT count(*) FROM canned_replies WHERE account_id = ?`, c.AccountID); err != nil {
			return err
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
	out, err := queryAll(ctx, s, scanCanned, `SELECT `+cannedCols+` FROM canned_replies WHERE account_id = ? ORDER BY shortcut, language`, accountID)
	if err != nil {
		return nil, fmt.Errorf("canned replies: %w", err)
	}
	return out, nil
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
		return oneRow(tx.ExecContext(ctx, `DELETE FROM canned_replies WHERE id = ? AND account_id = ?`, id, accountID))
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
		if err := belowLimit(ctx, tx, store.MaxNotesPerConversation, store.ErrNoteLimit,
			`SELECT count(*) FROM conversation_notes WHERE conversation_id = ?`, n.ConversationID); err != nil {
			return err
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
	out, err := queryAll(ctx, s, scanNote, `SELECT `+noteCols+` FROM conversation_notes WHERE conversation_id = ? AND account_id = ? ORDER BY seq`,
		conversationID, accountID)
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	return out, nil
}
