package storetest

import (
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

func newUser(t *testing.T, s store.Store, accountID string, role domain.UserRole) domain.User {
	t.Helper()
	u, err := s.CreateUser(t.Context(), store.NewUser{
		AccountID:    accountID,
		Email:        secret.ID("op", 6) + "@example.com",
		Name:         "User " + string(role),
		PasswordHash: "hash",
		Role:         role,
	})
	noErr(t, "CreateUser", err)
	return u
}

// owner is the user CreateAccount made for the account.
func owner(t *testing.T, s store.Store, a domain.Account) domain.User {
	t.Helper()
	u, err := s.UserByEmail(t.Context(), a.Email)
	noErr(t, "UserByEmail owner", err)
	return u
}

// testAccountOwner: CreateAccount also creates the owner user, atomically.
func testAccountOwner(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, err := s.CreateAccount(ctx, store.NewAccount{
		Email: "Boss@Example.COM", Name: "Boss", PasswordHash: "$2a$boss", Limits: domain.DefaultLimits,
	})
	noErr(t, "CreateAccount", err)
	users, err := s.Users(ctx, a.ID)
	noErr(t, "Users", err)
	if len(users) != 1 {
		t.Fatalf("Users = %+v, want the owner alone", users)
	}
	u := users[0]
	if u.ID == "" || u.AccountID != a.ID || u.Email != "boss@example.com" || u.Name != "Boss" ||
		u.PasswordHash != "$2a$boss" || u.Role != domain.UserOwner || !u.IsOwner() {
		t.Errorf("owner = %+v", u)
	}
	sameTime(t, "owner CreatedAt", u.CreatedAt, a.CreatedAt)

	// An email that is only a user's (not an account's) still blocks a new
	// account, and the refused account leaves nothing behind.
	op := newUser(t, s, a.ID, domain.UserOperator)
	_, err = s.CreateAccount(ctx, store.NewAccount{Email: op.Email, Name: "Thief", Limits: domain.DefaultLimits})
	wantErr(t, "CreateAccount with an operator's email", err, domain.ErrConflict)
	_, err = s.AccountByEmail(ctx, op.Email)
	wantErr(t, "AccountByEmail after the refused account", err, domain.ErrNotFound)
	if n, err := s.CountAccounts(ctx); err != nil || n != 1 {
		t.Errorf("CountAccounts = %d, %v; want 1", n, err)
	}
}

func testUsers(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	other := newAccount(t, s, domain.DefaultLimits)
	own := owner(t, s, a)

	before := time.Now()
	op, err := s.CreateUser(ctx, store.NewUser{
		AccountID: a.ID, Email: "Olga.Ștefan@Example.com", Name: "Olga", PasswordHash: "h1", Role: domain.UserOperator,
	})
	after := time.Now()
	noErr(t, "CreateUser", err)
	if op.ID == "" || op.ID == own.ID || op.AccountID != a.ID || op.Email != "olga.ștefan@example.com" ||
		op.Name != "Olga" || op.PasswordHash != "h1" || op.Role != domain.UserOperator || op.IsOwner() {
		t.Errorf("CreateUser = %+v", op)
	}
	stampedNow(t, "CreatedAt", op.CreatedAt, before, after)

	lookups := []struct {
		name    string
		lookup  func() (domain.User, error)
		want    domain.User
		wantErr error
	}{
		{"by email", func() (domain.User, error) { return s.UserByEmail(ctx, "olga.ștefan@example.com") }, op, nil},
		{"by email upper", func() (domain.User, error) { return s.UserByEmail(ctx, "OLGA.ȘTEFAN@EXAMPLE.COM") }, op, nil},
		{"owner by email", func() (domain.User, error) { return s.UserByEmail(ctx, a.Email) }, own, nil},
		{"by id", func() (domain.User, error) { return s.User(ctx, a.ID, op.ID) }, op, nil},
		{"missing email", func() (domain.User, error) { return s.UserByEmail(ctx, "nobody@example.com") }, domain.User{}, domain.ErrNotFound},
		{"missing id", func() (domain.User, error) { return s.User(ctx, a.ID, "usr_missing") }, domain.User{}, domain.ErrNotFound},
		{"another account's", func() (domain.User, error) { return s.User(ctx, other.ID, op.ID) }, domain.User{}, domain.ErrNotFound},
	}
	for _, tt := range lookups {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.lookup()
			if tt.wantErr != nil {
				wantErr(t, tt.name, err, tt.wantErr)
				return
			}
			noErr(t, tt.name, err)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}

	refused := []struct {
		name string
		user store.NewUser
		want error
	}{
		{"a user's email in another case", store.NewUser{AccountID: a.ID, Email: "OLGA.Ștefan@example.COM", Role: domain.UserOperator}, domain.ErrConflict},
		{"the owner's email", store.NewUser{AccountID: a.ID, Email: a.Email, Role: domain.UserOwner}, domain.ErrConflict},
		{"a user's email, from another account", store.NewUser{AccountID: other.ID, Email: op.Email, Role: domain.UserOperator}, domain.ErrConflict},
		{"another account's email", store.NewUser{AccountID: a.ID, Email: other.Email, Role: domain.UserOperator}, domain.ErrConflict},
		{"a missing account", store.NewUser{AccountID: secret.AccountID(), Email: "new@example.com", Role: domain.UserOperator}, domain.ErrNotFound},
	}
	for _, tt := range refused {
		_, err := s.CreateUser(ctx, tt.user)
		wantErr(t, "CreateUser with "+tt.name, err, tt.want)
	}
	if _, err := s.CreateUser(ctx, store.NewUser{AccountID: a.ID, Email: "x@example.com", Role: "admin"}); err == nil {
		t.Error("CreateUser with an unknown role succeeded")
	}

	// Oldest first; the owner came with the account.
	second := newUser(t, s, a.ID, domain.UserOwner)
	users, err := s.Users(ctx, a.ID)
	noErr(t, "Users", err)
	if want := []domain.User{own, op, second}; !slices.Equal(users, want) {
		t.Errorf("Users =\n%+v\nwant\n%+v", users, want)
	}
	users, err = s.Users(ctx, other.ID)
	noErr(t, "Users other", err)
	if len(users) != 1 || users[0].Email != other.Email {
		t.Errorf("Users of the other account = %+v", users)
	}
	users, err = s.Users(ctx, secret.AccountID())
	noErr(t, "Users missing account", err)
	if len(users) != 0 {
		t.Errorf("Users of a missing account = %+v", users)
	}
}

func testSetPassword(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	op := newUser(t, s, a.ID, domain.UserOperator)
	own := owner(t, s, a)

	noErr(t, "SetPassword", s.SetPassword(ctx, op.ID, "new-hash"))
	got, err := s.User(ctx, a.ID, op.ID)
	noErr(t, "User", err)
	want := op
	want.PasswordHash = "new-hash"
	if got != want {
		t.Errorf("after SetPassword = %+v, want %+v", got, want)
	}
	if got := owner(t, s, a); got != own {
		t.Errorf("SetPassword changed another user: %+v, was %+v", got, own)
	}
	wantErr(t, "SetPassword missing", s.SetPassword(ctx, "usr_missing", "h"), domain.ErrNotFound)
}

func testDeleteUser(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	other := newAccount(t, s, domain.DefaultLimits)
	first := owner(t, s, a)
	op := newUser(t, s, a.ID, domain.UserOperator)
	hash := secret.HashToken(secret.ID("sess_", 16))
	noErr(t, "CreateSession", s.CreateSession(ctx, op.ID, hash, time.Now().Add(time.Hour)))

	var second domain.User
	steps := []struct {
		name      string
		before    func()
		accountID string
		userID    func() string
		want      error
	}{
		{name: "operator from another account", accountID: other.ID, userID: func() string { return op.ID }, want: domain.ErrNotFound},
		{name: "the only owner", accountID: a.ID, userID: func() string { return first.ID }, want: domain.ErrConflict},
		{name: "operator", accountID: a.ID, userID: func() string { return op.ID }},
		{name: "operator again", accountID: a.ID, userID: func() string { return op.ID }, want: domain.ErrNotFound},
		{
			name:   "an owner beside another",
			before: func() { second = newUser(t, s, a.ID, domain.UserOwner) },
			// Any owner but the last may go, the account's first one too.
			accountID: a.ID, userID: func() string { return first.ID },
		},
		{name: "the remaining owner", accountID: a.ID, userID: func() string { return second.ID }, want: domain.ErrConflict},
		{name: "missing user", accountID: a.ID, userID: func() string { return "usr_missing" }, want: domain.ErrNotFound},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		err := s.DeleteUser(ctx, st.accountID, st.userID())
		if st.want != nil {
			wantErr(t, "DeleteUser "+st.name, err, st.want)
		} else {
			noErr(t, "DeleteUser "+st.name, err)
		}
	}

	// The operator's session went with them.
	_, err := s.SessionUser(ctx, hash, time.Now())
	wantErr(t, "SessionUser of a deleted user", err, domain.ErrNotFound)
	_, err = s.UserByEmail(ctx, op.Email)
	wantErr(t, "UserByEmail of a deleted user", err, domain.ErrNotFound)
	users, err := s.Users(ctx, a.ID)
	noErr(t, "Users", err)
	if len(users) != 1 || users[0] != second {
		t.Errorf("Users = %+v, want only %+v", users, second)
	}
	// A deleted user's email is free again.
	_, err = s.CreateUser(ctx, store.NewUser{AccountID: a.ID, Email: op.Email, Role: domain.UserOperator})
	noErr(t, "CreateUser with a deleted user's email", err)
}

func testSessions(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	own := owner(t, s, a)
	op := newUser(t, s, a.ID, domain.UserOperator)
	session := func() []byte { return secret.HashToken(secret.ID("sess_", 16)) }

	now := time.Now()
	expires := now.Add(time.Hour)
	h1, h2, hOwner := session(), session(), session()
	noErr(t, "CreateSession", s.CreateSession(ctx, op.ID, h1, expires))
	noErr(t, "CreateSession second", s.CreateSession(ctx, op.ID, h2, expires))
	noErr(t, "CreateSession owner", s.CreateSession(ctx, own.ID, hOwner, expires))
	wantErr(t, "CreateSession missing user", s.CreateSession(ctx, "usr_missing", session(), expires), domain.ErrNotFound)

	tests := []struct {
		name string
		hash []byte
		at   time.Time
		want domain.User // zero: ErrNotFound
	}{
		{"valid", h1, now, op},
		{"owner's", hOwner, now, own},
		{"just before expiry", h1, expires.Add(-time.Millisecond), op},
		{"at expiry", h1, expires, domain.User{}},
		{"after expiry", h1, expires.Add(time.Minute), domain.User{}},
		{"unknown", session(), now, domain.User{}},
	}
	for _, tt := range tests {
		got, err := s.SessionUser(ctx, tt.hash, tt.at)
		if tt.want.ID == "" {
			wantErr(t, "SessionUser "+tt.name, err, domain.ErrNotFound)
			continue
		}
		noErr(t, "SessionUser "+tt.name, err)
		if got != tt.want {
			t.Errorf("SessionUser %s = %+v, want %+v", tt.name, got, tt.want)
		}
	}

	noErr(t, "DeleteSession", s.DeleteSession(ctx, h1))
	_, err := s.SessionUser(ctx, h1, now)
	wantErr(t, "SessionUser after DeleteSession", err, domain.ErrNotFound)
	noErr(t, "DeleteSession again", s.DeleteSession(ctx, h1))
	if _, err := s.SessionUser(ctx, h2, now); err != nil {
		t.Errorf("DeleteSession ended the user's other session: %v", err)
	}

	// Sign out everywhere: all of the operator's sessions, nobody else's.
	h3 := session()
	noErr(t, "CreateSession third", s.CreateSession(ctx, op.ID, h3, expires))
	noErr(t, "DeleteUserSessions", s.DeleteUserSessions(ctx, op.ID))
	for _, h := range [][]byte{h2, h3} {
		_, err := s.SessionUser(ctx, h, now)
		wantErr(t, "SessionUser after DeleteUserSessions", err, domain.ErrNotFound)
	}
	if got, err := s.SessionUser(ctx, hOwner, now); err != nil || got != own {
		t.Errorf("DeleteUserSessions ended another user's session: %+v, %v", got, err)
	}

	// A session created already expired never authenticates.
	past := session()
	noErr(t, "CreateSession expired", s.CreateSession(ctx, op.ID, past, now.Add(-time.Minute)))
	_, err = s.SessionUser(ctx, past, now)
	wantErr(t, "SessionUser of an expired session", err, domain.ErrNotFound)
}

// testAPITokenList: listing, revoking and the isolation of both.
func testAPITokenList(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, domain.DefaultLimits)
	other := newAccount(t, s, domain.DefaultLimits)

	tokens, err := s.APITokens(ctx, a.ID)
	noErr(t, "APITokens empty", err)
	if len(tokens) != 0 {
		t.Errorf("APITokens of a new account = %+v", tokens)
	}

	create := func(accountID, name string) (domain.APIToken, []byte) {
		h := secret.HashToken(secret.APIToken())
		tok, err := s.CreateAPIToken(ctx, accountID, name, h)
		noErr(t, "CreateAPIToken", err)
		return tok, h
	}
	t1, h1 := create(a.ID, "ci")
	t2, h2 := create(a.ID, "deploy")
	t3, h3 := create(other.ID, "theirs")

	list := func(accountID string) []domain.APIToken {
		t.Helper()
		toks, err := s.APITokens(ctx, accountID)
		noErr(t, "APITokens", err)
		return toks
	}
	if got, want := list(a.ID), []domain.APIToken{t1, t2}; !slices.Equal(got, want) {
		t.Errorf("APITokens = %+v, want %+v", got, want)
	}
	if got, want := list(other.ID), []domain.APIToken{t3}; !slices.Equal(got, want) {
		t.Errorf("APITokens of the other account = %+v, want %+v", got, want)
	}

	wantErr(t, "RevokeAPIToken of another account's token", s.RevokeAPIToken(ctx, a.ID, t3.ID), domain.ErrNotFound)
	if acc, err := s.AccountByAPIToken(ctx, h3); err != nil || acc.ID != other.ID {
		t.Errorf("a refused revoke broke the token: %+v, %v", acc, err)
	}
	noErr(t, "RevokeAPIToken", s.RevokeAPIToken(ctx, a.ID, t1.ID))
	_, err = s.AccountByAPIToken(ctx, h1)
	wantErr(t, "AccountByAPIToken of a revoked token", err, domain.ErrNotFound)
	if acc, err := s.AccountByAPIToken(ctx, h2); err != nil || acc.ID != a.ID {
		t.Errorf("revoking one token broke another: %+v, %v", acc, err)
	}
	if got, want := list(a.ID), []domain.APIToken{t2}; !slices.Equal(got, want) {
		t.Errorf("APITokens after revoke = %+v, want %+v", got, want)
	}
	wantErr(t, "RevokeAPIToken again", s.RevokeAPIToken(ctx, a.ID, t1.ID), domain.ErrNotFound)
	wantErr(t, "RevokeAPIToken missing", s.RevokeAPIToken(ctx, a.ID, secret.TokenID()), domain.ErrNotFound)
}

// Deleting an operator hands the conversations they were answering back to
// the AI, queued for another human; others' conversations stay as they are.
func testDeleteUserReleasesConversations(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	op, err := s.CreateUser(ctx, store.NewUser{AccountID: f.account.ID, Email: "op-" + f.account.ID + "@example.com", Name: "Oleg", PasswordHash: "h", Role: domain.UserOperator})
	noErr(t, "CreateUser", err)
	owner, err := s.UserByEmail(ctx, f.account.Email)
	noErr(t, "UserByEmail", err)
	mine, theirs := f.conversation(t, s, base), f.conversation(t, s, base.Add(1))
	_, won, err := s.TakeOver(ctx, mine.ID, op.ID, op.Name)
	noErr(t, "TakeOver", err)
	_, won2, err := s.TakeOver(ctx, theirs.ID, owner.ID, owner.Name)
	noErr(t, "TakeOver", err)
	if !won || !won2 {
		t.Fatal("takeovers lost")
	}
	noErr(t, "DeleteUser", s.DeleteUser(ctx, f.account.ID, op.ID))
	c, _ := s.Conversation(ctx, mine.ID)
	if c.Mode != domain.ModeAI || !c.Waiting || c.AssigneeID != "" || c.AssigneeName != "" {
		t.Fatalf("the deleted operator's conversation: %+v", c)
	}
	c, _ = s.Conversation(ctx, theirs.ID)
	if c.Mode != domain.ModeHuman || c.AssigneeID != owner.ID {
		t.Fatalf("another user's conversation changed: %+v", c)
	}
}
