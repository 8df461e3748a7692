package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"parley/internal/domain"
	"parley/internal/store"
)

// migratedTo opens a new database at path with the embedded migrations up
// to version only: the schema an older Parley left. The caller fills it
// with plain SQL, as that code did, and closes it.
func migratedTo(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, "_txlock=immediate"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	ms, err := loadMigrations(migrationFiles())
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, m := range ms {
		if m.version <= version {
			fsys[m.name] = &fstest.MapFile{Data: []byte(m.sql)}
		}
	}
	if err := migrate(t.Context(), db, fsys); err != nil {
		t.Fatalf("migrate to %04d: %v", version, err)
	}
	return db
}

// execAll runs each statement on db, failing the test at the first error.
func execAll(t *testing.T, db *sql.DB, statements ...string) {
	t.Helper()
	for _, q := range statements {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// columnOf is column col of every row query returns, as text.
func columnOf(t *testing.T, db *sql.DB, col int, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s", vals[col]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// opcodes lists the SQLite program of query, one opcode per step.
func opcodes(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	return columnOf(t, db, 1, "EXPLAIN "+query, args...) // addr, opcode, p1, ...
}

// queryPlan is SQLite's plan for query, one line a step.
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	return columnOf(t, db, 3, "EXPLAIN QUERY PLAN "+query, args...) // id, parent, notused, detail
}

// messageRows is every message of db, a line each, in seq order.
func messageRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return columnOf(t, db, 0, `SELECT seq || '|' || conversation_id || '|' || role || '|' || text || '|' ||
		text_folded || '|' || operator_name || '|' || created_at FROM messages ORDER BY seq`)
}

// oldOwner is an account with an agent, as the schemas of 0001 to 0004
// store them.
var oldOwner = []string{
	`INSERT INTO accounts VALUES ('acc_old', 'old@example.com', 'Old Co', '$2a$old', 100, 0, 0, 1)`,
	`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at)
		VALUES ('ag_old', 'acc_old', 'Bot', '{}', 1, 1)`,
}

// TestUpgradeFrom0003: migration 0004 rebuilds messages with its role
// check as comparisons, and keeps every message, its seq, the index, the
// foreign key and the AUTOINCREMENT counter.
func TestUpgradeFrom0003(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := migratedTo(t, path, 3)
	execAll(t, old, slices.Concat(oldOwner, []string{
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at)
			VALUES ('cv_a', 'ag_old', 'acc_old', 'v_1', '', 'human', 1), ('cv_b', 'ag_old', 'acc_old', 'v_2', '', 'ai', 2)`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES
			('cv_a', 'visitor', 'Hello', 'hello', '', 10),
			('cv_a', 'ai', 'Hi!', 'hi!', '', 11),
			('cv_a', 'operator', 'Ana here', 'ana here', 'Ana', 12),
			('cv_b', 'visitor', 'ПРИВЕТ', 'привет', '', 13),
			('cv_b', 'ai', 'late', 'late', '', 14)`,
		// The newest message is gone: its seq (5) must still never come back.
		`DELETE FROM messages WHERE seq = 5`,
	})...)
	before := messageRows(t, old)
	if len(before) != 4 {
		t.Fatalf("old messages = %v", before)
	}
	insert := `INSERT INTO messages (conversation_id, role, text, created_at) VALUES (?, ?, 'x', 1)`
	if ops := opcodes(t, old, insert, "cv_a", "ai"); !slices.Contains(ops, "OpenEphemeral") {
		t.Fatalf("the old schema's insert does not build a temporary table (%v): this test would prove nothing", ops)
	}
	old.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the upgrade: %v", err)
	}
	defer s.Close()

	if after := messageRows(t, s.r); !slices.Equal(after, before) {
		t.Errorf("messages after the upgrade:\n%v\nwant\n%v", after, before)
	}

	if ops := opcodes(t, s.r, insert, "cv_a", "ai"); slices.Contains(ops, "OpenEphemeral") {
		t.Errorf("a message insert still builds a temporary table: %v", ops)
	}
	plan := strings.Join(queryPlan(t, s.r, `SELECT seq FROM messages WHERE conversation_id = 'cv_a' ORDER BY seq`), "; ")
	if !strings.Contains(plan, "messages_conversation") {
		t.Errorf("reading a conversation's messages does not use its index: %s", plan)
	}

	// The counter went on from the deleted message, not from the largest
	// seq copied.
	m, _, err := s.AddMessage(ctx, store.NewMessage{ConversationID: "cv_b", Role: domain.RoleVisitor, Text: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Seq != 6 {
		t.Errorf("first new seq = %d, want 6 (5 was used before the upgrade)", m.Seq)
	}

	// The constraints hold as before.
	for _, bad := range []struct{ what, conv, role string }{
		{"an unknown role", "cv_a", "bot"},
		{"a role in another case", "cv_a", "AI"},
		{"a missing conversation", "cv_none", "ai"},
	} {
		if _, err := s.w.ExecContext(ctx, insert, bad.conv, bad.role); err == nil {
			t.Errorf("a message with %s was accepted", bad.what)
		}
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM conversations WHERE id = 'cv_a'`); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE conversation_id = 'cv_a'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d messages of a deleted conversation left (%v); the cascade is gone", left, err)
	}
}

// TestUpgradeFrom0004: migration 0005 drops the stored copies of each
// conversation's last message; what the store returns is read from the
// messages, and is what the copies said.
func TestUpgradeFrom0004(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := migratedTo(t, path, 4)
	execAll(t, old, slices.Concat(oldOwner, []string{
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, last_message_at, last_message)
			VALUES ('cv_a', 'ag_old', 'acc_old', 'v_1', '', 'ai', 1, 12, 'Ana here'),
			       ('cv_empty', 'ag_old', 'acc_old', 'v_2', '', 'ai', 2, NULL, '')`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES
			('cv_a', 'visitor', 'Hello', 'hello', '', 10),
			('cv_a', 'ai', 'Hi!', 'hi!', '', 11),
			('cv_a', 'operator', 'Ana here', 'ana here', 'Ana', 12)`,
	})...)
	old.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the upgrade: %v", err)
	}
	defer s.Close()
	rows, err := s.r.QueryContext(ctx, `SELECT name FROM pragma_table_info('conversations') WHERE name LIKE 'last_message%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		rows.Scan(&name)
		t.Errorf("column conversations.%s is still there", name)
	}
	rows.Close()

	c, err := s.Conversation(ctx, "cv_a")
	if err != nil || c.LastMessage != "Ana here" || c.LastMessageAt.UnixMilli() != 12 {
		t.Errorf("Conversation(cv_a) = %+v, %v; want the last message %q at 12 ms", c, err, "Ana here")
	}
	page, err := s.Conversations(ctx, "acc_old", store.ConversationFilter{})
	if err != nil || len(page.Conversations) != 2 {
		t.Fatalf("Conversations = %+v, %v", page, err)
	}
	for _, c := range page.Conversations {
		switch {
		case c.ID == "cv_empty" && (c.LastMessage != "" || !c.LastMessageAt.IsZero()):
			t.Errorf("a conversation without messages lists a last message: %+v", c)
		case c.ID == "cv_a" && (c.LastMessage != "Ana here" || c.LastMessageAt.UnixMilli() != 12):
			t.Errorf("cv_a listed as %+v", c)
		}
	}
}

// TestUpgradeFrom0019: migration 0020 gives every conversation its latest
// activity (its newest message, or its start) and every waiting one the
// start of its wait (its newest AI or operator message: a visitor's later
// message does not restart it; its start when it has none), so the desk
// lists them by activity and the queue longest waiting first at once.
func TestUpgradeFrom0019(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := migratedTo(t, path, 19)
	execAll(t, old, slices.Concat([]string{
		`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at)
			VALUES ('acc_old', 'old@example.com', 'Old Co', '$2a$old', 100, 0, 0, 1)`,
		oldOwner[1],
	}, []string{
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at, waiting)
			VALUES ('cv_quiet', 'ag_old', 'acc_old', 'v_1', '', 'ai', 1000, 0),
			       ('cv_talk', 'ag_old', 'acc_old', 'v_2', '', 'ai', 2000, 0),
			       ('cv_wait', 'ag_old', 'acc_old', 'v_3', '', 'ai', 4000, 1),
			       ('cv_wait_empty', 'ag_old', 'acc_old', 'v_4', '', 'ai', 8000, 1)`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES
			('cv_talk', 'visitor', 'Hello', 'hello', '', 3000),
			('cv_talk', 'ai', 'Hi!', 'hi!', '', 9000),
			('cv_wait', 'visitor', 'A human, please', 'a human, please', '', 5000),
			('cv_wait', 'ai', 'A person will answer.', 'a person will answer.', '', 6000),
			('cv_wait', 'visitor', 'Hello?', 'hello?', '', 7000)`,
	})...)
	old.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the upgrade: %v", err)
	}
	defer s.Close()
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
	list := func(f store.ConversationFilter) []string {
		t.Helper()
		page, err := s.Conversations(ctx, "acc_old", f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range page.Conversations {
			out = append(out, c.ID)
		}
		return out
	}
	if got, want := list(store.ConversationFilter{Order: store.ByActivity}), []string{"cv_talk", "cv_wait_empty", "cv_wait", "cv_quiet"}; !slices.Equal(got, want) {
		t.Errorf("by activity: %v, want %v", got, want)
	}
	yes := true
	if got, want := list(store.ConversationFilter{Order: store.ByWaiting, Waiting: &yes}), []string{"cv_wait", "cv_wait_empty"}; !slices.Equal(got, want) {
		t.Errorf("the queue: %v, want %v", got, want)
	}
}
