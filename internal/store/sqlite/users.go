package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

const userCols = `id, account_id, email, name, password_hash, role, created_at`

func scanUser(sc scanner) (domain.User, error) {
	var u domain.User
	var created int64
	if err := sc.Scan(&u.ID, &u.AccountID, &u.Email, &u.Name, &u.PasswordHash, &u.Role, &created); err != nil {
		return domain.User{}, notFound(err, domain.ErrNotFound)
	}
	u.CreatedAt = fromMillis(created)
	return u, nil
}

// insertUser writes u as it is; callers normalize the email. A taken email
// is ErrConflict, a missing account ErrNotFound.
func insertUser(ctx context.Context, tx *sql.Tx, u domain.User) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO users (`+userCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.AccountID, u.Email, u.Name, u.PasswordHash, u.Role, millis(u.CreatedAt))
	return constraintErr(err)
}

func (s *Store) CreateUser(ctx context.Context, n store.NewUser) (domain.User, error) {
	u, err := n.Build(now())
	if err != nil {
		return domain.User{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		// Users' emails are unique by the column. Another account's email
		// is refused too: it belongs to whoever created that account, even
		// if its owner user has since been replaced by another owner.
		var taken int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE email = ? AND id <> ?`,
			u.Email, u.AccountID).Scan(&taken)
		if err != nil {
			return err
		}
		if taken > 0 {
			return domain.ErrConflict
		}
		return insertUser(ctx, tx, u)
	})
	if err != nil {
		return domain.User{}, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

func (s *Store) UserByEmail(ctx context.Context, email string) (domain.User, error) {
	return scanUser(s.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE email = ?`, store.NormEmail(email)))
}

func (s *Store) User(ctx context.Context, accountID, userID string) (domain.User, error) {
	return scanUser(s.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = ? AND account_id = ?`,
		userID, accountID))
}

func (s *Store) Users(ctx context.Context, accountID string) ([]domain.User, error) {
	return queryAll(ctx, s, scanUser, `SELECT `+userCols+` FROM users WHERE account_id = ? ORDER BY created_at, rowid`, accountID)
}

// SetPassword changes only the user's hash. accounts.password_hash is the
// hash the account was created with and no longer signs anyone in.
func (s *Store) SetPassword(ctx context.Context, userID, passwordHash string) error {
	if err := store.CheckText(userID, passwordHash); err != nil {
		return err
	}
	return oneRow(s.w.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, passwordHash, userID))
}

func (s *Store) SetUserLanguage(ctx context.Context, userID, lang string) error {
	if err := store.CheckText(userID, lang); err != nil {
		return err
	}
	return oneRow(s.w.ExecContext(ctx, `UPDATE users SET language = ? WHERE id = ?`, lang, userID))
}

// DeleteUser counts the owners, asks store.CanDeleteUser and deletes in
// one writer transaction, so
// two owners deleting each other at once cannot leave the account with
// none. The user's sessions go with it (ON DELETE CASCADE).
func (s *Store) DeleteUser(ctx context.Context, accountID, userID string) error {
	if err := store.CheckText(accountID, userID); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var role domain.UserRole
		var owners int
		err := tx.QueryRowContext(ctx, `SELECT role, (SELECT count(*) FROM users WHERE account_id = ? AND role = 'owner')
			FROM users WHERE id = ? AND account_id = ?`, accountID, userID, accountID).Scan(&role, &owners)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if err := store.CanDeleteUser(role, owners); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, userID); err != nil {
			return err
		}
		// Conversations the user was answering go back to the AI and into
		// the "needs a human" queue, so their visitors are not left waiting
		// for someone who is gone. Their wait begins now (a handoff, which a
		// human's conversation has already had: its time stays).
		s.invalidate(cacheEvent{what: forgetConversations})
		at := now()
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET mode = 'ai', waiting = 1, waiting_since = ?, assignee_id = '', assignee_name = '',
			`+handOffSet+` WHERE account_id = ? AND assignee_id = ? AND mode = 'human'`,
			append(append([]any{millis(at)}, handOffArgs(at)...), accountID, userID)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	return nil
}

// CreateSession also deletes the sessions that have expired: signing in is
// rare enough to carry that cleanup, and it needs no background job.
func (s *Store) CreateSession(ctx context.Context, userID string, tokenHash []byte, expires time.Time) error {
	if err := store.CheckText(userID); err != nil {
		return err
	}
	created := now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, millis(created)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			tokenHash, userID, millis(created), millis(expires))
		return constraintErr(err)
	})
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// SessionUser treats an expired session like a missing one; the row stays
// until the next CreateSession removes it.
func (s *Store) SessionUser(ctx context.Context, tokenHash []byte, now time.Time) (domain.User, error) {
	u, err := scanUser(s.queryRow(ctx, `
		SELECT `+userCols+` FROM users
		WHERE id = (SELECT user_id FROM sessions WHERE token_hash = ? AND expires_at > ?)`,
		tokenHash, millis(now)))
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return domain.User{}, fmt.Errorf("session user: %w", err)
	}
	return u, err
}

// DeleteSession succeeds when there is no such session: signing out twice
// is not an error.
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

func (s *Store) DeleteUserSessions(ctx context.Context, userID string) error {
	if err := store.CheckText(userID); err != nil {
		return err
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID); err != nil {
		return fmt.Errorf("delete user sessions: %w", err)
	}
	return nil
}
