package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"parley/internal/secret"
	"parley/internal/testsvc"
)

// postgresURL gives a URL of a fresh schema on the test server, dropped
// when the test ends; the test skips without PARLEY_TEST_POSTGRES_URL
// unless PARLEY_TEST_POSTGRES=required.
func postgresURL(t *testing.T) string {
	t.Helper()
	base := testsvc.PostgresURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	schema := strings.ToLower(secret.ID("cmd_", 8))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.Background())
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// The whole program on PostgreSQL: the demo, a chat, a restart.
func TestServeOnPostgres(t *testing.T) {
	t.Parallel()
	db := postgresURL(t)
	a := startOnTerminal(t, db, nil)
	key, token := field(t, a.stdout.String(), "Widget key"), field(t, a.stdout.String(), "API token")
	status, init := post(t, a.base+"/api/widget/init", "", map[string]any{"key": key})
	if status != 200 {
		t.Fatalf("init: %d", status)
	}
	conv := init["conversation_id"].(string)
	if status, _ := post(t, a.base+"/api/widget/chat", "", map[string]any{"key": key, "conversation_id": conv, "text": "Which database does Parley need?"}); status != 200 {
		t.Fatalf("chat: %d", status)
	}
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	b := startOnTerminal(t, db, nil)
	status, detail := get(t, b.base+"/api/v1/conversations/"+conv, token)
	if msgs, _ := detail["messages"].([]any); status != 200 || len(msgs) != 2 {
		t.Fatalf("after restart on PostgreSQL: %d %v", status, detail)
	}
	if status, _ := get(t, b.base+"/healthz", ""); status != 200 {
		t.Fatalf("healthz: %d", status)
	}
}

// The start line names the database without its password (issue 14: it
// logged db="postgres://postgres:S3cretPW@…"). The local server trusts
// any password.
func TestStartLogHidesTheDatabasePassword(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(postgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "S3cretPW")
	a := start(t, u.String(), map[string]string{"PARLEY_DEMO": "false"})
	logs := a.logs.String()
	if !strings.Contains(logs, "parley listening") || !strings.Contains(logs, ":xxxxx@") || strings.Contains(logs, "S3cretPW") {
		t.Fatalf("start log:\n%s", logs)
	}
}
