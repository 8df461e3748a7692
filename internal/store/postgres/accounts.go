package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

const accountCols = `id, email, name, password_hash,
	monthly_conversations, overage_price_cents, spend_cap_cents, created_at`

func scanAccount(row pgx.Row) (domain.Account, error) {
	var a domain.Account
	err := row.Scan(&a.ID, &a.Email, &a.Name, &a.PasswordHash,
		&a.Limits.MonthlyConversations, &a.Limits.OveragePriceCents, &a.Limits.SpendCapCents, &a.CreatedAt)
	if err != nil {
		return domain.Account{}, notFound(err, domain.ErrNotFound)
	}
	a.CreatedAt = ms(a.CreatedAt)
	return a, nil
}

func (s *Store) CreateAccount(ctx context.Context, n store.NewAccount) (domain.Account, error) {
	a, owner, err := n.Build(now())
	if err != nil {
		return domain.Account{}, err
	}
	// The owner user is created in the same transaction: an account nobody
	// can sign in to must never exist, nor an owner without an account.
	err = s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO accounts (`+accountCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			a.ID, a.Email, a.Name, a.PasswordHash,
			a.Limits.MonthlyConversations, a.Limits.OveragePriceCents, a.Limits.SpendCapCents, a.CreatedAt)
		if err != nil {
			return err
		}
		return insertUser(ctx, tx, owner)
	})
	if err != nil {
		return domain.Account{}, fmt.Errorf("create account: %w", err)
	}
	return a, nil
}

func (s *Store) AccountByID(ctx context.Context, id string) (domain.Account, error) {
	return scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountCols+` FROM accounts WHERE id = $1`, id))
}

func (s *Store) AccountByEmail(ctx context.Context, email string) (domain.Account, error) {
	return scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountCols+` FROM accounts WHERE email = $1`, store.NormEmail(email)))
}

func (s *Store) SetLimits(ctx context.Context, accountID string, l domain.Limits) error {
	err := rowsAffected(s.pool.Exec(ctx, `
		UPDATE accounts SET monthly_conversations = $1, overage_price_cents = $2, spend_cap_cents = $3
		WHERE id = $4`,
		l.MonthlyConversations, l.OveragePriceCents, l.SpendCapCents, accountID))
	if err != nil {
		return fmt.Errorf("set limits: %w", err)
	}
	return nil
}

func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n)
	return n, err
}

func (s *Store) CreateAPIToken(ctx context.Context, accountID, name string, tokenHash []byte) (domain.APIToken, error) {
	t := domain.APIToken{ID: secret.TokenID(), AccountID: accountID, Name: name, CreatedAt: now()}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO api_tokens (id, account_id, name, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
		t.ID, t.AccountID, t.Name, tokenHash, t.CreatedAt)
	if err != nil {
		return domain.APIToken{}, fmt.Errorf("create api token: %w", dbErr(err))
	}
	return t, nil
}

func (s *Store) AccountByAPIToken(ctx context.Context, tokenHash []byte) (domain.Account, error) {
	return scanAccount(s.pool.QueryRow(ctx, `
		SELECT `+accountCols+` FROM accounts
		WHERE id = (SELECT account_id FROM api_tokens WHERE token_hash = $1)`, tokenHash))
}

// APITokens lists the account's tokens without their hashes: a hash is only
// ever compared, never shown.
func (s *Store) APITokens(ctx context.Context, accountID string) ([]domain.APIToken, error) {
	// A failed Query also fails CollectRows, which reports it.
	rows, _ := s.pool.Query(ctx, `
		SELECT id, account_id, name, created_at FROM api_tokens
		WHERE account_id = $1 ORDER BY created_at, ord`, accountID)
	toks, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.APIToken, error) {
		var t domain.APIToken
		var created time.Time
		err := row.Scan(&t.ID, &t.AccountID, &t.Name, &created)
		t.CreatedAt = ms(created)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("api tokens: %w", err)
	}
	return toks, nil
}

// RevokeAPIToken deletes the row, so AccountByAPIToken stops finding the
// account at once. The account in the WHERE keeps one account from revoking
// another's token.
func (s *Store) RevokeAPIToken(ctx context.Context, accountID, tokenID string) error {
	return rowsAffected(s.pool.Exec(ctx, `DELETE FROM api_tokens WHERE id = $1 AND account_id = $2`, tokenID, accountID))
}
