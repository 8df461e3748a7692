package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

const cannedCols = `id, account_id, shortcut, language, text, created_at, updated_at`

func scanCanned(row pgx.Row) (store.CannedReply, error) {
	var c store.CannedReply
	if err := row.Scan(&c.ID, &c.AccountID, &c.Shortcut, &c.Language, &c.Text, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return store.CannedReply{}, err
	}
	c.CreatedAt, c.UpdatedAt = ms(c.CreatedAt), ms(c.UpdatedAt)
	return c, nil
}

// CreateCannedReply locks the account's row, so concurrent creations
// count one after another and cannot pass the bound together.
func (s *Store) CreateCannedReply(ctx context.Context, n store.NewCannedReply) (store.CannedReply, error) {
	c, err := n.Build(now())
	if err != nil {
		return store.CannedReply{}, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, c.AccountID); err != nil {
			return err
		}
		if err := belowLimit(ctx, tx, store.MaxCannedReplies, store.ErrCannedLimit,
			`SELECT count(*) FROM canned_replies WHERE account_id = $1`, c.AccountID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO canned_replies (`+cannedCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			c.ID, c.AccountID, c.Shortcut, c.Language, c.Text, c.CreatedAt, c.UpdatedAt)
		return err
	})
	if err != nil {
		return store.CannedReply{}, fmt.Errorf("create canned reply: %w", err)
	}
	return c, nil
}

func (s *Store) CannedReply(ctx context.Context, accountID, id string) (store.CannedReply, error) {
	c, err := scanCanned(s.pool.QueryRow(ctx, `SELECT `+cannedCols+` FROM canned_replies WHERE id = $1 AND account_id = $2`, id, accountID))
	return c, notFound(err, domain.ErrNotFound)
}

func (s *Store) CannedReplies(ctx context.Context, accountID string) ([]store.CannedReply, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+cannedCols+` FROM canned_replies WHERE account_id = $1 ORDER BY shortcut COLLATE "C", language COLLATE "C"`, accountID)
	out, err := pgx.CollectRows(rows, rowTo(scanCanned))
	if err != nil {
		return nil, fmt.Errorf("canned replies: %w", dbErr(err))
	}
	return out, nil
}

func (s *Store) UpdateCannedReply(ctx context.Context, accountID, id string, p store.CannedReplyPatch) (store.CannedReply, error) {
	if err := store.CheckText(p.Shortcut, p.Language, p.Text); err != nil {
		return store.CannedReply{}, err
	}
	c, err := scanCanned(s.pool.QueryRow(ctx, `UPDATE canned_replies SET shortcut = $1, language = $2, text = $3, updated_at = $4
		WHERE id = $5 AND account_id = $6 RETURNING `+cannedCols, p.Shortcut, p.Language, p.Text, now(), id, accountID))
	if err != nil {
		return store.CannedReply{}, fmt.Errorf("update canned reply: %w", notFound(err, domain.ErrNotFound))
	}
	return c, nil
}

func (s *Store) DeleteCannedReply(ctx context.Context, accountID, id string) error {
	return rowsAffected(s.pool.Exec(ctx, `DELETE FROM canned_replies WHERE id = $1 AND account_id = $2`, id, accountID))
}

const noteCols = `id, account_id, conversation_id, author_id, author_name, text, created_at`

func scanNote(row pgx.Row) (store.Note, error) {
	var n store.Note
	if err := row.Scan(&n.ID, &n.AccountID, &n.ConversationID, &n.AuthorID, &n.AuthorName, &n.Text, &n.CreatedAt); err != nil {
		return store.Note{}, err
	}
	n.CreatedAt = ms(n.CreatedAt)
	return n, nil
}

// AddNote locks the conversation's row, so concurrent notes count one
// after another and cannot pass the bound together.
func (s *Store) AddNote(ctx context.Context, nn store.NewNote) (store.Note, error) {
	n, err := nn.Build(now())
	if err != nil {
		return store.Note{}, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM conversations WHERE id = $1 AND account_id = $2 FOR UPDATE`, n.ConversationID, n.AccountID).Scan(&one); err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if err := belowLimit(ctx, tx, store.MaxNotesPerConversation, store.ErrNoteLimit,
			`SELECT count(*) FROM conversation_notes WHERE conversation_id = $1`, n.ConversationID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO conversation_notes (`+noteCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			n.ID, n.AccountID, n.ConversationID, n.AuthorID, n.AuthorName, n.Text, n.CreatedAt)
		return err
	})
	if err != nil {
		return store.Note{}, fmt.Errorf("add note: %w", err)
	}
	return n, nil
}

func (s *Store) Notes(ctx context.Context, accountID, conversationID string) ([]store.Note, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+noteCols+` FROM conversation_notes WHERE conversation_id = $1 AND account_id = $2 ORDER BY seq`, conversationID, accountID)
	out, err := pgx.CollectRows(rows, rowTo(scanNote))
	if err != nil {
		return nil, fmt.Errorf("notes: %w", dbErr(err))
	}
	return out, nil
}
