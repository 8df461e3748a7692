package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

const accountCols = `id, email, name, password_hash,
	monthly_conversations, overage_price_cents, spend_cap_cents, created_at`

func scanAccount(sc scanner) (domain.Account, error) {
	var a domain.Account
	var created int64
	err := sc.Scan(&a.ID, &a.Email, &a.Name, &a.PasswordHash,
		&a.Limits.MonthlyConversations, &a.Limits.OveragePriceCents, &a.Limits.SpendCapCents, &created)
	if err != nil {
		return domain.Account{}, notFound(err, domain.ErrNotFound)
	}
	a.CreatedAt = fromMillis(created)
	return a, nil
}

func (s *Store) CreateAccount(ctx context.Context, n store.NewAccount) (domain.Account, error) {
	a, owner, err := n.Build(now())
	if err != nil {
		return domain.Account{}, err
	}
	// The owner user is created in the same transaction: an account nobody
	// can sign in to must never exist, nor an owner without an account.
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO accounts (`+accountCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.Email, a.Name, a.PasswordHash,
			a.Limits.MonthlyConversations, a.Limits.OveragePriceCents, a.Limits.SpendCapCents, millis(a.CreatedAt))
		if err != nil {
			return err
		}
		return insertUser(ctx, tx, owner)
	})
	if err != nil {
		return domain.Account{}, fmt.Errorf("create account: %w", constraintErr(err))
	}
	return a, nil
}

func (s *Store) AccountByID(ctx context.Context, id string) (domain.Account, error) {
	return scanAccount(s.queryRow(ctx, `SELECT `+accountCols+` FROM accounts WHERE id = ?`, id))
}

func (s *Store) AccountByEmail(ctx context.Context, email string) (domain.Account, error) {
	return scanAccount(s.queryRow(ctx, `SELECT `+accountCols+` FROM accounts WHERE email = ?`, store.NormEmail(email)))
}

func (s *Store) SetLimits(ctx context.Context, accountID string, l domain.Limits) error {
	res, err := s.w.ExecContext(ctx, `
		UPDATE accounts SET monthly_conversations = ?, overage_price_cents = ?, spend_cap_cents = ?
		WHERE id = ?`,
		l.MonthlyConversations, l.OveragePriceCents, l.SpendCapCents, accountID)
	if err != nil {
		return fmt.Errorf("set limits: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return domain.ErrNotFound
	}
	return nil
}

func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n)
	return n, err
}

func (s *Store) CreateAPIToken(ctx context.Context, accountID, name string, tokenHash []byte) (domain.APIToken, error) {
	if err := store.CheckText(accountID, name); err != nil {
		return domain.APIToken{}, err
	}
	t := domain.APIToken{ID: secret.TokenID(), AccountID: accountID, Name: name, CreatedAt: now()}
	_, err := s.w.ExecContext(ctx, `
		INSERT INTO api_tokens (id, account_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
		t.ID, t.AccountID, t.Name, tokenHash, millis(t.CreatedAt))
	if err != nil {
		return domain.APIToken{}, fmt.Errorf("create api token: %w", constraintErr(err))
	}
	return t, nil
}

func (s *Store) AccountByAPIToken(ctx context.Context, tokenHash []byte) (domain.Account, error) {
	return scanAccount(s.queryRow(ctx, `
		SELECT `+accountCols+` FROM accounts
		WHERE id = (SELECT account_id FROM api_tokens WHERE token_hash = ?)`, tokenHash))
}

// APITokens lists the account's tokens without their hashes: a hash is only
// ever compared, never shown.
func (s *Store) APITokens(ctx context.Context, accountID string) ([]domain.APIToken, error) {
	return queryAll(ctx, s, scanAPIToken, `
		SELECT id, account_id, name, created_at FROM api_tokens
		WHERE account_id = ? ORDER BY created_at, rowid`, accountID)
}

func scanAPIToken(sc scanner) (domain.APIToken, error) {
	var t domain.APIToken
	var created int64
	if err := sc.Scan(&t.ID, &t.AccountID, &t.Name, &created); err != nil {
		return domain.APIToken{}, err
	}
	t.CreatedAt = fromMillis(created)
	return t, nil
}

// RevokeAPIToken deletes the row, so AccountByAPIToken stops finding the
// account at once. The account in the WHERE keeps one account from revoking
// another's token.
func (s *Store) RevokeAPIToken(ctx context.Context, accountID, tokenID string) error {
	if err := store.CheckText(accountID, tokenID); err != nil {
		return err
	}
	return oneRow(s.w.ExecContext(ctx, `DELETE FROM api_tokens WHERE id = ? AND account_id = ?`, tokenID, accountID))
}
