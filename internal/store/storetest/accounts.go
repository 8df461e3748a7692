package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

func testAccounts(t *testing.T, s store.Store) {
	ctx := t.Context()
	before := time.Now()
	limits := domain.Limits{MonthlyConversations: 7, OveragePriceCents: 3, SpendCapCents: 99}
	a, err := s.CreateAccount(ctx, store.NewAccount{
		Email: "Mixed.Case@Example.COM", Name: "Ann", PasswordHash: "$2a$hash", Limits: limits,
	})
	after := time.Now()
	noErr(t, "CreateAccount", err)
	if a.ID == "" {
		t.Fatal("CreateAccount: empty id")
	}
	if a.Email != "mixed.case@example.com" {
		t.Errorf("email %q, want it lower-cased", a.Email)
	}
	stampedNow(t, "CreatedAt", a.CreatedAt, before, after)

	got, err := s.AccountByID(ctx, a.ID)
	noErr(t, "AccountByID", err)
	if got != a {
		t.Errorf("AccountByID = %+v, want %+v", got, a)
	}

	// The same email in any case is taken.
	for _, email := range []string{"mixed.case@example.com", "MIXED.CASE@EXAMPLE.COM", "Mixed.Case@Example.COM"} {
		_, err := s.CreateAccount(ctx, store.NewAccount{Email: email, Name: "dup"})
		wantErr(t, "CreateAccount "+email, err, domain.ErrConflict)
	}
	_, err = s.CreateAccount(ctx, store.NewAccount{Email: "other@example.com", Name: "Other"})
	noErr(t, "CreateAccount other", err)

	n, err := s.CountAccounts(ctx)
	noErr(t, "CountAccounts", err)
	if n != 2 {
		t.Errorf("CountAccounts = %d, want 2", n)
	}
}

func testAccountLookups(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, err := s.CreateAccount(ctx, store.NewAccount{Email: "Bob@Example.com", Name: "Bob", Limits: domain.DefaultLimits})
	noErr(t, "CreateAccount", err)

	tests := []struct {
		name    string
		lookup  func() (domain.Account, error)
		wantErr error
	}{
		{"by id", func() (domain.Account, error) { return s.AccountByID(ctx, a.ID) }, nil},
		{"by email lower", func() (domain.Account, error) { return s.AccountByEmail(ctx, "bob@example.com") }, nil},
		{"by email upper", func() (domain.Account, error) { return s.AccountByEmail(ctx, "BOB@EXAMPLE.COM") }, nil},
		{"by email as created", func() (domain.Account, error) { return s.AccountByEmail(ctx, "Bob@Example.com") }, nil},
		{"missing id", func() (domain.Account, error) { return s.AccountByID(ctx, secret.AccountID()) }, domain.ErrNotFound},
		{"missing email", func() (domain.Account, error) { return s.AccountByEmail(ctx, "nobody@example.com") }, domain.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.lookup()
			if tt.wantErr != nil {
				wantErr(t, tt.name, err, tt.wantErr)
				return
			}
			noErr(t, tt.name, err)
			if got != a {
				t.Errorf("got %+v, want %+v", got, a)
			}
		})
	}
}

func testLimits(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	l := domain.Limits{MonthlyConversations: 5, OveragePriceCents: 25, SpendCapCents: 1000}
	noErr(t, "SetLimits", s.SetLimits(ctx, a.ID, l))
	got, err := s.AccountByID(ctx, a.ID)
	noErr(t, "AccountByID", err)
	if got.Limits != l {
		t.Errorf("Limits = %+v, want %+v", got.Limits, l)
	}
	wantErr(t, "SetLimits missing", s.SetLimits(ctx, secret.AccountID(), l), domain.ErrNotFound)
}

func testAPITokens(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	newAccount(t, s, domain.DefaultLimits) // a neighbour the lookup must not find
	hash := secret.HashToken(secret.APIToken())
	tok, err := s.CreateAPIToken(ctx, a.ID, "ci", hash)
	noErr(t, "CreateAPIToken", err)
	if tok.ID == "" || tok.AccountID != a.ID || tok.Name != "ci" || tok.CreatedAt.IsZero() {
		t.Errorf("CreateAPIToken = %+v", tok)
	}

	got, err := s.AccountByAPIToken(ctx, hash)
	noErr(t, "AccountByAPIToken", err)
	if got.ID != a.ID {
		t.Errorf("AccountByAPIToken = %s, want %s", got.ID, a.ID)
	}
	_, err = s.AccountByAPIToken(ctx, secret.HashToken("unknown"))
	wantErr(t, "AccountByAPIToken unknown", err, domain.ErrNotFound)
}
