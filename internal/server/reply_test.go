package server

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// An account whose name is over 100 characters replies through the API
// without naming an operator: the name it did not send is shortened (on a
// character boundary), not refused. An operator_name the client sends
// that is too long stays a 400, and a refused reply leaves the mode as
// it was.
func TestOperatorReplyWithALongAccountName(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	long := strings.Repeat("Ана ", 40) // 160 characters, two bytes each but the spaces
	acc, err := e.store.CreateAccount(ctx, store.NewAccount{Email: "long@example.com", Name: long, PasswordHash: "x", Limits: domain.Limits{MonthlyConversations: 10}})
	if err != nil {
		t.Fatal(err)
	}
	token := secret.APIToken()
	if _, err := e.store.CreateAPIToken(ctx, acc.ID, "t", secret.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	_, key := e.newAgent(acc.ID, "Long", `{}`)
	init := e.do("POST", "/api/widget/init", map[string]any{"key": key}, nil)
	conv := init.str("conversation_id")
	auth := map[string]string{"Authorization": "Bearer " + token}
	path := "/api/v1/conversations/" + conv + "/messages"

	// Too long and sent by the client: 400, and the mode stays ai.
	wantError(t, e.do("POST", path, map[string]any{"text": "hi", "operator_name": strings.Repeat("n", 101)}, auth), 400, "")
	if c, _ := e.store.Conversation(ctx, conv); c.Mode != domain.ModeAI {
		t.Fatalf("a refused reply changed the mode to %s", c.Mode)
	}

	r := e.do("POST", path, map[string]any{"text": "Hello from a person"}, auth)
	if r.status != 201 {
		t.Fatalf("reply without operator_name: %d %s", r.status, r.raw)
	}
	name := r.str("operator_name")
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > 100 || !strings.HasPrefix(long, name) || len(name) < 150 {
		t.Fatalf("operator_name %q (%d characters): want the account's name cut to 100 characters", name, utf8.RuneCountInString(name))
	}
	if c, _ := e.store.Conversation(ctx, conv); c.Mode != domain.ModeHuman {
		t.Fatalf("mode after the reply: %s", c.Mode)
	}
}
