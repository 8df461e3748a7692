package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

const userCols = `id, account_id, email, name, password_hash, role, created_at`

func scanUser(row pgx.Row) (domain.User, error) {
	var u domain.User
	if err := row.Scan(&u.ID, &u.AccountID, &u.Email, &u.Name, &u.PasswordHash, &u.Role, &u.CreatedAt); err != nil {
		return domain.User{}, notFound(err, domain.ErrNotFound)
	}
	u.CreatedAt = ms(u.CreatedAt)
	return u, nil
}

// insertUser writes u as it is; callers normalize the email. A taken email
// is ErrConflict, a missing account ErrNotFound (through write's dbErr).
func insertUser(ctx context.Context, tx pgx.Tx, u domain.User) error {
	_, err := tx.Exec(ctx, `INSERT INTO users (`+userCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		u.ID, u.AccountID, u.Email, u.Name, u.PasswordHash, u.Role, u.CreatedAt)
	return err
}

func (s *Store) CreateUser(ctx context.Context, n store.NewUser) (domain.User, error) {
	u, err := n.Build(now())
	if err != nil {
		return domain.User{}, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		// Users' emails are unique by the column. Another account's email
		// is refused too: it belongs to whoever created that account, even
		// if its owner user has since been replaced by another owner. No
		// lock is needed: an account being created concurrently with this
		// email also inserts its owner user, and the users UNIQUE refuses
		// one of the two.
		var taken bool
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE email = $1 AND id <> $2)`,
			u.Email, u.AccountID).Scan(&taken)
		if err != nil {
			return err
		}
		if taken {
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
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE email = $1`, store.NormEmail(email)))
}

func (s *Store) User(ctx context.Context, accountID, userID string) (domain.User, error) {
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = $1 AND account_id = $2`,
		userID, accountID))
}

func (s *Store) Users(ctx context.Context, accountID string) ([]domain.User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userCols+` FROM users WHERE account_id = $1 ORDER BY created_at, ord`,
		accountID)
	users, err := pgx.CollectRows(rows, rowTo(scanUser))
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	return users, nil
}

// SetPassword changes only the user's hash. accounts.password_hash is the
// hash the account was created with and no longer signs anyone in.
func (s *Store) SetPassword(ctx context.Context, userID, passwordHash string) error {
	return rowsAffected(s.pool.Exec(ctx, `UPDATE users SET password_hash = $1 WHERE id = $2`, passwordHash, userID))
}

func (s *Store) SetUserLanguage(ctx context.Context, userID, lang string) error {
	if err := store.CheckText(userID, lang); err != nil {
		return err
	}
	return rowsAffected(s.pool.Exec(ctx, `UPDATE users SET language = $1 WHERE id = $2`, lang, userID))
}

// DeleteUser counts the owners, asks store.CanDeleteUser and deletes in
// one transaction holding the
// account's row lock, so two owners deleting each other at once (from two
// instances, say) are serialized and cannot leave the account with none.
// The user's sessions go with it (ON DELETE CASCADE).
func (s *Store) DeleteUser(ctx context.Context, accountID, userID string) error {
	err := s.write(ctx, func(tx pgx.Tx) error {
		// FOR NO KEY UPDATE, not FOR UPDATE: rows inserted meanwhile that
		// reference the account (their foreign key check takes KEY SHARE)
		// need not wait for this.
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, accountID).Scan(&one)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		var role domain.UserRole
		var owners int
		err = tx.QueryRow(ctx, `SELECT role, (SELECT count(*) FROM users WHERE account_id = $2 AND role = 'owner')
			FROM users WHERE id = $1 AND account_id = $2`, userID, accountID).Scan(&role, &owners)
		if err != nil {
			return notFound(err, domain.ErrNotFound)
		}
		if err := store.CanDeleteUser(role, owners); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, userID); err != nil {
			return err
		}
		// Conversations the user was answering go back to the AI and into
		// the "needs a human" queue, so their visitors are not left waiting
		// for someone who is gone. Their wait begins now (a handoff, which a
		// human's conversation has already had: its time stays).
		at := now()
		_, err = tx.Exec(ctx, `UPDATE conversations SET mode = 'ai', waiting = true, waiting_since = $3, assignee_id = '', assignee_name = '',
			`+handOffSet(3)+` WHERE account_id = $1 AND assignee_id = $2 AND mode = 'human'`,
			append([]any{accountID, userID}, handOffArgs(at)...)...)
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
	created := now()
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, created); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			tokenHash, userID, created, ms(expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// SessionUser treats an expired session like a missing one; the row stays
// until the next CreateSession removes it. now is compared at the store's
// precision, as expires_at was written.
func (s *Store) SessionUser(ctx context.Context, tokenHash []byte, now time.Time) (domain.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `
		SELECT `+userCols+` FROM users
		WHERE id = (SELECT user_id FROM sessions WHERE token_hash = $1 AND expires_at > $2)`,
		tokenHash, ms(now)))
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return domain.User{}, fmt.Errorf("session user: %w", err)
	}
	return u, err
}

// DeleteSession succeeds when there is no such session: signing out twice
// is not an error.
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

func (s *Store) DeleteUserSessions(ctx context.Context, userID string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete user sessions: %w", err)
	}
	return nil
}
