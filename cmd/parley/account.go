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
	"parley/internal/password"
	"parley/internal/redact"
	"parley/internal/secret"
	"parley/internal/store"
)

// accountCommand runs `parley account create|password|limits` against --db.
func accountCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "parley account: want a subcommand: create, password or limits\n", usage)
		return 2
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "create", "password", "limits":
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage, "\nparley account SUBCOMMAND --help lists its flags.\n")
		return 0
	default:
		fmt.Fprintf(stderr, "parley account: unknown subcommand %q\n%s", sub, usage)
		return 2
	}
	fs := flag.NewFlagSet("parley account "+sub, flag.ContinueOnError)
	db := config.DBFlag(fs, getenv)
	email := fs.String("email", "", "the account's email (required; for password, any user's)")
	var pw passwordFlags
	var name *string
	if sub != "limits" {
		pw.register(fs)
	}
	if sub == "create" {
		name = fs.String("name", "", "display name, also the default operator name")
	}
	var monthly *int
	var price, spendCap *int64
	if sub != "password" {
		monthly = fs.Int("monthly-conversations", -1, "conversations included per month")
		price = fs.Int64("overage-price-cents", -1, "price of each conversation beyond the allowance, in cents; 0 turns overage off")
		spendCap = fs.Int64("spend-cap-cents", -1, "most the overage may cost per month, in cents")
	}
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if strings.TrimSpace(*email) == "" {
		fmt.Fprintln(stderr, "parley account: --email is required")
		return 2
	}
	var secretPW string
	if sub != "limits" {
		var err error
		if secretPW, err = pw.read(stdin, stderr); err != nil {
			fmt.Fprintln(stderr, "parley account:", err)
			return 2
		}
		// The rule for new passwords, checked before the database is
		// opened: nothing changes when it is refused.
		if err := password.Check(secretPW); err != nil {
			fmt.Fprintln(stderr, "parley account:", err)
			return 2
		}
	}
	st, err := openStore(ctx, *db)
	if err != nil {
		fmt.Fprintln(stderr, "parley account:", redact.String(err.Error()))
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

	switch sub {
	case "create":
		err = createAccount(ctx, st, *email, secretPW, *name, setLimits, stdout)
	case "password":
		err = setPassword(ctx, st, *email, secretPW, stdout)
	default:
		err = changeLimits(ctx, st, *email, setLimits, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "parley account:", redact.String(err.Error()))
		return 1
	}
	return 0
}

// parseFlags parses args into fs. -h or --help prints fs's flags on stdout
// (exit 0); a mistake is said on stderr (exit 2). done reports that the
// command is over, with code.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		// --db's default comes from PARLEY_DB, which may hold a password.
		var flags strings.Builder
		fs.SetOutput(&flags)
		fs.PrintDefaults()
		fmt.Fprintf(stdout, "Usage of %s:\n%s", fs.Name(), redact.String(flags.String()))
		return 0, true
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n%s --help lists the flags\n", fs.Name(), err, fs.Name())
		return 2, true
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected arguments: %s\n", fs.Name(), strings.Join(fs.Args(), " "))
		return 2, true
	}
	return 0, false
}

func createAccount(ctx context.Context, st interface {
	store.Accounts
	store.APITokens
}, email, pw, name string,
	setLimits func(domain.Limits) (domain.Limits, error), stdout io.Writer) error {
	limits, err := setLimits(domain.DefaultLimits)
	if err != nil {
		return err
	}
	hash, err := secret.HashPassword(pw)
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

// setPassword gives a user (an owner or an operator) a new password and
// ends their sessions: the way into the demo account on a start that did
// not print its password, and out of a forgotten one.
func setPassword(ctx context.Context, st interface {
	store.Users
	store.Sessions
}, email, pw string, stdout io.Writer) error {
	u, err := st.UserByEmail(ctx, email)
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("no user with email %s", email)
	}
	if err != nil {
		return err
	}
	hash, err := secret.HashPassword(pw)
	if err != nil {
		return err
	}
	if err := st.SetPassword(ctx, u.ID, hash); err != nil {
		return err
	}
	if err := st.DeleteUserSessions(ctx, u.ID); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]string{"user_id": u.ID, "email": u.Email, "password": "changed"})
}

func changeLimits(ctx context.Context, st store.Accounts, email string,
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
