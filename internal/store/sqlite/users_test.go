package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// TestUpgradeFrom0002: a database made before users existed gets an owner
// user per account and searchable (folded) message texts.
func TestUpgradeFrom0002(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")

	// Build the old schema with migrations 0001 and 0002 only, and fill it
	// the way the old code did, with plain SQL.
	old := migratedTo(t, path, 2)
	created := time.Date(2024, time.May, 1, 8, 30, 0, 0, time.UTC)
	const messages = 3*foldBatch + 7 // several batches of the Go step
	for _, q := range []string{
		`INSERT INTO accounts VALUES ('acc_old', 'old@example.com', 'Old Co', '$2a$old', 100, 0, 0, ?)`,
		`INSERT INTO accounts VALUES ('acc_two', 'two@example.com', 'Two', '$2a$two', 100, 0, 0, ?)`,
		`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at)
			VALUES ('ag_old', 'acc_old', 'Bot', '{}', ?1, ?1)`,
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at)
			VALUES ('cv_old', 'ag_old', 'acc_old', 'v_1', '', 'human', ?)`,
	} {
		if _, err := old.ExecContext(ctx, q, created.UnixMilli()); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := old.ExecContext(ctx, `
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO messages (conversation_id, role, text, created_at)
		SELECT 'cv_old', 'visitor', 'ПРИВЕТ Ș Hello #' || i, ? FROM n`, messages, created.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the upgrade: %v", err)
	}
	defer s.Close()

	for _, acc := range []struct{ id, email, name, hash string }{
		{"acc_old", "old@example.com", "Old Co", "$2a$old"},
		{"acc_two", "two@example.com", "Two", "$2a$two"},
	} {
		u, err := s.UserByEmail(ctx, strings.ToUpper(acc.email))
		if err != nil {
			t.Fatalf("owner of %s: %v", acc.id, err)
		}
		if !strings.HasPrefix(u.ID, "usr_") || u.AccountID != acc.id || u.Email != acc.email || u.Name != acc.name ||
			u.PasswordHash != acc.hash || u.Role != domain.UserOwner || !u.CreatedAt.Equal(created) {
			t.Errorf("owner of %s = %+v", acc.id, u)
		}
		if users, err := s.Users(ctx, acc.id); err != nil || len(users) != 1 || users[0] != u {
			t.Errorf("Users(%s) = %+v, %v; want the owner alone", acc.id, users, err)
		}
	}

	// Every existing message was folded, across batches.
	rows, err := s.r.QueryContext(ctx, `SELECT text, text_folded FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var text, folded string
		if err := rows.Scan(&text, &folded); err != nil {
			t.Fatal(err)
		}
		if folded != fold(text) {
			t.Errorf("text_folded of %q = %q, want %q", text, folded, fold(text))
		}
		n++
	}
	rows.Close()
	if n != messages {
		t.Errorf("%d messages, want %d", n, messages)
	}
	page, err := s.Conversations(ctx, "acc_old", store.ConversationFilter{Search: "привет ș hello #" + "1207"})
	if err != nil || len(page.Conversations) != 1 || page.Conversations[0].ID != "cv_old" {
		t.Errorf("search of an old message = %+v, %v", page.Conversations, err)
	}

	// A conversation an operator held before has no assignee; a takeover
	// by a dashboard user waits for its release.
	c, won, err := s.TakeOver(ctx, "cv_old", "usr_x", "X")
	if err != nil || won || c.Mode != domain.ModeHuman || c.AssigneeID != "" || c.AssigneeName != "" {
		t.Errorf("TakeOver of an old human conversation = %+v, %v, %v", c, won, err)
	}

	// The old emails stay taken for new accounts and users.
	_, err = s.CreateAccount(ctx, store.NewAccount{Email: "OLD@example.com", Limits: domain.DefaultLimits})
	if err == nil {
		t.Error("CreateAccount with an upgraded account's email succeeded")
	}
	_, err = s.CreateUser(ctx, store.NewUser{AccountID: "acc_two", Email: "old@example.com", Role: domain.UserOperator})
	if err == nil {
		t.Error("CreateUser with an upgraded account's email succeeded")
	}
}

func TestExpiredSessionsAreCleaned(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	ctx := t.Context()
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com", Limits: domain.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.UserByEmail(ctx, acc.Email)
	if err != nil {
		t.Fatal(err)
	}
	for _, expires := range []time.Time{time.Now().Add(-time.Hour), time.Now().Add(-time.Second), time.Now().Add(time.Hour)} {
		if err := s.CreateSession(ctx, u.ID, secret.HashToken(secret.ID("s", 16)), expires); err != nil {
			t.Fatal(err)
		}
	}
	// The third CreateSession removed the two expired before inserting.
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d sessions stored, want 1: the expired ones must be cleaned", n)
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"Hello, WORLD 123!", "hello, world 123!"},
		{"ПРИВЕТ, Мир", "привет, мир"},
		{"ȘTIU ȚARA Ăă Îî Ââ", "știu țara ăă îî ââ"},
		{"ΛΟΓΟΣ", "λογοσ"},
		{"λογος", "λογοσ"}, // final sigma folds with σ and Σ
		{"\u212a", "k"},    // Kelvin sign
		{"\u017f", "s"},    // long s
		{"%_\\", "%_\\"},   // LIKE's special characters are left alone
		{"日本語 😀", "日本語 😀"}, // no case: unchanged
	}
	for _, tt := range tests {
		if got := fold(tt.in); got != tt.want {
			t.Errorf("fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	// Whatever strings.EqualFold calls equal folds to the same text.
	pairs := [][2]string{
		{"ǅ", "ǆ"}, {"Ǆ", "ǅ"}, {"Σ", "ς"}, {"K", "\u212a"}, {"ß", "ẞ"}, {"Ω", "\u2126"}, {"Ĳ", "ĳ"},
	}
	for _, p := range pairs {
		if !strings.EqualFold(p[0], p[1]) {
			t.Fatalf("test pair %q %q is not EqualFold", p[0], p[1])
		}
		if fold(p[0]) != fold(p[1]) {
			t.Errorf("fold(%q) = %q, fold(%q) = %q; want equal", p[0], fold(p[0]), p[1], fold(p[1]))
		}
	}
}

func TestContainsPattern(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"abc", "%abc%"},
		{"ABC", "%abc%"},
		{"50%", `%50\%%`},
		{"a_b", `%a\_b%`},
		{`C:\x`, `%c:\\x%`},
		{`\%`, `%\\\%%`},
	}
	for _, tt := range tests {
		if got := containsPattern(tt.in); got != tt.want {
			t.Errorf("containsPattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
