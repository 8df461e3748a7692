package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"parley/internal/config"
	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// accountCommand runs `parley account create|limits` against --db.
func accountCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "parley account: want a subcommand: create or limits\n", usage)
		return 2
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("parley account "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := config.DBFlag(fs, getenv)
	email := fs.String("email", "", "the account's email (required)")
	var password, name *string
	if sub == "create" {
		password = fs.String("password", "", "the account's password (required, 8 to 72 bytes)")
		name = fs.String("name", "", "display name, also the default operator name")
	}
	monthly := fs.Int("monthly-conversations", -1, "conversations included per month")
	price := fs.Int64("overage-price-cents", -1, "price of each conversation beyond the allowance, in cents; 0 turns overage off")
	spendCap := fs.Int64("spend-cap-cents", -1, "most the overage may cost per month, in cents")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if sub != "create" && sub != "limits" {
		fmt.Fprintf(stderr, "parley account: unknown subcommand %q\n", sub)
		return 2
	}
	if strings.TrimSpace(*email) == "" {
		fmt.Fprintln(stderr, "parley account: --email is required")
		return 2
	}
	st, err := openStore(ctx, *db)
	if err != nil {
		fmt.Fprintln(stderr, "parley account:", err)
		return 1
	}
	defer st.Close()

	// -1, the flags' default, means "leave as it is".
	setLimits := func(l domain.Limits) (domain.Limits, error) {
		if *monthly < -1 || *price < -1 || *spendCap < -1 {
			return l, errors.New("limits must not be negative")
		}
		if *monthly >= 0 {
			l.MonthlyConversations = *monthly
		}
		if *price >= 0 {
			l.OveragePriceCents = *price
		}
		if *spendCap >= 0 {
			l.SpendCapCents = *spendCap
		}
		return l, nil
	}

	if sub == "create" {
		err = createAccount(ctx, st, *email, *password, *name, setLimits, stdout)
	} else {
		err = changeLimits(ctx, st, *email, setLimits, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "parley account:", err)
		return 1
	}
	return 0
}

func createAccount(ctx context.Context, st store.Store, email, password, name string,
	setLimits func(domain.Limits) (domain.Limits, error), stdout io.Writer) error {
	if len(password) < 8 {
		return errors.New("--password must be at least 8 characters")
	}
	limits, err := setLimits(domain.DefaultLimits)
	if err != nil {
		return err
	}
	hash, err := secret.HashPassword(password)
	if err != nil {
		return err
	}
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: email, Name: name, PasswordHash: hash, Limits: limits})
	if errors.Is(err, domain.ErrConflict) {
		return fmt.Errorf("an account with email %s exists already", email)
	}
	if err != nil {
		return err
	}
	token := secret.APIToken()
	if _, err := st.CreateAPIToken(ctx, acc.ID, "cli", secret.HashToken(token)); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]string{"account_id": acc.ID, "api_token": token})
}

func changeLimits(ctx context.Context, st store.Store, email string,
	setLimits func(domain.Limits) (domain.Limits, error), stdout io.Writer) error {
	acc, err := st.AccountByEmail(ctx, email)
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("no account with email %s", email)
	}
	if err != nil {
		return err
	}
	limits, err := setLimits(acc.Limits)
	if err != nil {
		return err
	}
	if err := st.SetLimits(ctx, acc.ID, limits); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"account_id": acc.ID, "limits": limits})
}
