package postgres

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgxpool"

	"parley/internal/domain"
	"parley/internal/store"
)

// TestMessageCountMigration: migration 0002 gives the conversations of a
// database from before the cap the count of the messages they hold (one
// with more than any cap among them), and the cap then applies to them.
func TestMessageCountMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := freshSchema(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations(migrationFiles())
	if err != nil {
		t.Fatal(err)
	}
	first := fstest.MapFS{ms[0].name: &fstest.MapFile{Data: []byte(ms[0].sql)}}
	if err := migrate(ctx, pool, first); err != nil {
		pool.Close()
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
			VALUES ('acc_old', 'old@example.com', 'Old', 'h', 100, 0, 0, now())`,
		`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at)
			VALUES ('ag_old', 'acc_old', 'Bot', '{}', now(), now())`,
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at)
			VALUES ('cv_big', 'ag_old', 'acc_old', 'v', '', 'ai', now()), ('cv_small', 'ag_old', 'acc_old', 'v', '', 'ai', now()),
			('cv_empty', 'ag_old', 'acc_old', 'v', '', 'ai', now())`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, created_at)
			SELECT 'cv_big', 'visitor', 'm', 'm', now() FROM generate_series(1, 1200)`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, created_at)
			SELECT 'cv_small', 'visitor', 'm', 'm', now() FROM generate_series(1, 3)`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			pool.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	pool.Close()

	s := open(t, url) // migrates to the newest
	add := func(id string, max int) error {
		_, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: id, Role: domain.RoleVisitor, Text: "m", MaxMessages: max})
		return err
	}
	for id, want := range map[string]int{"cv_big": 1200, "cv_small": 3, "cv_empty": 0} {
		if err := add(id, want+1); err != nil {
			t.Errorf("%s: a message under a cap of %d: %v", id, want+1, err)
		}
		if err := add(id, want+1); !errors.Is(err, domain.ErrConversationFull) {
			t.Errorf("%s: a message at its cap of %d: %v, want ErrConversationFull", id, want+1, err)
		}
	}
}
