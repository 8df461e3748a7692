package postgres

import (
	"errors"
	"fmt"
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

// TestActivityMigration: migration 0017 gives every conversation of an
// older database its latest activity (its last message, or its start) and
// every waiting one the start of its wait (its newest AI or operator
// message: a visitor's later message does not restart it; its start when
// it has none).
func TestActivityMigration(t *testing.T) {
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
	older := fstest.MapFS{}
	for _, m := range ms {
		if m.version <= 16 {
			older[m.name] = &fstest.MapFile{Data: []byte(m.sql)}
		}
	}
	if err := migrate(ctx, pool, older); err != nil {
		pool.Close()
		t.Fatal(err)
	}
	ts := func(ms int) string { return fmt.Sprintf("to_timestamp(%d / 1000.0)", ms) }
	for _, q := range []string{
		`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
			VALUES ('acc_old', 'old@example.com', 'Old', 'h', 100, 0, 0, now())`,
		`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at)
			VALUES ('ag_old', 'acc_old', 'Bot', '{}', now(), now())`,
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, last_message_at, waiting) VALUES
			('cv_quiet', 'ag_old', 'acc_old', 'v', '', 'ai', ` + ts(1000) + `, NULL, false),
			('cv_talk', 'ag_old', 'acc_old', 'v', '', 'ai', ` + ts(2000) + `, ` + ts(9000) + `, false),
			('cv_wait', 'ag_old', 'acc_old', 'v', '', 'ai', ` + ts(4000) + `, ` + ts(7000) + `, true),
			('cv_wait_empty', 'ag_old', 'acc_old', 'v', '', 'ai', ` + ts(8000) + `, NULL, true)`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, created_at) VALUES
			('cv_talk', 'visitor', 'm', 'm', ` + ts(3000) + `), ('cv_talk', 'ai', 'm', 'm', ` + ts(9000) + `),
			('cv_wait', 'visitor', 'm', 'm', ` + ts(5000) + `), ('cv_wait', 'ai', 'm', 'm', ` + ts(6000) + `),
			('cv_wait', 'visitor', 'm', 'm', ` + ts(7000) + `)`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			pool.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	pool.Close()

	s := open(t, url) // migrates to the newest
	for id, want := range map[string][2]int64{
		"cv_quiet": {1000, 0}, "cv_talk": {9000, 0}, "cv_wait": {7000, 6000}, "cv_wait_empty": {8000, 8000},
	} {
		c, err := s.Conversation(ctx, id)
		since := int64(0)
		if !c.WaitingSince.IsZero() {
			since = c.WaitingSince.UnixMilli()
		}
		if err != nil || c.LastActivityAt.UnixMilli() != want[0] || since != want[1] {
			t.Errorf("%s: activity %v, waiting since %v (%v); want %d and %d ms", id, c.LastActivityAt, c.WaitingSince, err, want[0], want[1])
		}
	}
	yes := true
	page, err := s.Conversations(ctx, "acc_old", store.ConversationFilter{Order: store.ByWaiting, Waiting: &yes})
	if err != nil || len(page.Conversations) != 2 || page.Conversations[0].ID != "cv_wait" {
		t.Errorf("the queue: %+v, %v; want cv_wait first of two", page.Conversations, err)
	}
}
