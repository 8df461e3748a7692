package server

import (
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

const refusedIdentity = "the visitor's identity could not be verified"

// Verified visitors over HTTP: the owner reads the identity secret, a
// page signs its user with it; a wrong hash is the exact 403; a verified
// user's second device gets the history, and nobody else does (not by
// visitor_id, not by an unsigned user_id); rotation invalidates old
// hashes; require_identity refuses anonymous visitors; privacy requests
// find the verified user's conversations by user_id.
func TestIdentityVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	g := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil)
	secret := g.str("identity_secret")
	if g.status != 200 || !strings.HasPrefix(secret, "is_") {
		t.Fatalf("GET agent: %d %s", g.status, g.raw)
	}
	if again := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil); again.str("identity_secret") != secret {
		t.Fatalf("the secret changed between two reads: %s", again.raw)
	}
	init := func(body map[string]any) response {
		t.Helper()
		body["key"] = e.key
		return e.do("POST", "/api/widget/init", body, nil)
	}
	hash := domain.UserHash(secret, "user-42")

	first := init(map[string]any{"user_id": "user-42", "user_hash": hash, "name": "Ana", "email": "ana@example.com"})
	if first.status != 200 || first.body["verified"] != true || first.body["history"] != nil {
		t.Fatalf("first verified init: %d %s", first.status, first.raw)
	}
	conv := first.str("conversation_id")
	if r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "What are your opening hours?"}, nil); r.status != 200 {
		t.Fatalf("chat: %d %s", r.status, r.raw)
	}
	c, err := e.store.Conversation(t.Context(), conv)
	if err != nil || c.UserID != "user-42" || c.Name != "Ana" || c.Email != "ana@example.com" || !c.Verified {
		t.Fatalf("stored conversation %+v %v", c, err)
	}

	// A second device: a new visitor id, the same signed user.
	second := init(map[string]any{"user_id": "user-42", "user_hash": hash})
	h, _ := second.body["history"].(map[string]any)
	msgs, _ := h["messages"].([]any)
	if second.status != 200 || h["conversation_id"] != conv || len(msgs) != 2 {
		t.Fatalf("second device: %d %s", second.status, second.raw)
	}
	if m := msgs[0].(map[string]any); m["role"] != "visitor" || m["text"] != "What are your opening hours?" {
		t.Errorf("history's first message %v", m)
	}
	if second.str("visitor_id") == first.str("visitor_id") {
		t.Errorf("the second device was given the first one's visitor id")
	}

	// Nobody else sees it: the first device's visitor_id, an unsigned
	// user_id, another user's signed id.
	for name, body := range map[string]map[string]any{
		"visitor_id":      {"visitor_id": first.str("visitor_id")},
		"unsigned":        {"user_id": "user-42", "name": "Mallory"},
		"another user":    {"user_id": "user-7", "user_hash": domain.UserHash(secret, "user-7")},
		"anonymous plain": {},
	} {
		r := init(body)
		if r.status != 200 || r.body["history"] != nil || (r.body["verified"] != nil) != (name == "another user") {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	unsigned, _ := e.store.Conversations(t.Context(), e.account.ID, storeFilterUser("user-42"))
	if len(unsigned.Conversations) != 2 {
		t.Errorf("user-42 has %d conversations, want 2 (the unsigned claim must not join them)", len(unsigned.Conversations))
	}

	// A wrong hash is 403, and so is a hash of another user's id.
	for _, body := range []map[string]any{
		{"user_id": "user-42", "user_hash": strings.Repeat("0", 64)},
		{"user_id": "user-43", "user_hash": hash},
		{"user_id": "user-42", "user_hash": "not hex"},
	} {
		if r := init(body); r.status != 403 || r.str("error") != refusedIdentity {
			t.Errorf("wrong hash %v: %d %s", body, r.status, r.raw)
		}
	}
	// Bounds are 400s.
	for _, body := range []map[string]any{
		{"user_id": strings.Repeat("u", 201)},
		{"name": strings.Repeat("n", 101)},
		{"email": strings.Repeat("e", 255)},
		{"user_hash": hash},
	} {
		if r := init(body); r.status != 400 {
			t.Errorf("out of bounds %v: %d %s", body, r.status, r.raw)
		}
	}

	// Rotation: the new secret in the body; old hashes stop matching.
	rot := e.api("POST", "/api/v1/agents/"+e.agent.ID+"/identity-secret", nil)
	fresh := rot.str("identity_secret")
	if rot.status != 200 || fresh == "" || fresh == secret {
		t.Fatalf("rotate: %d %s", rot.status, rot.raw)
	}
	if r := init(map[string]any{"user_id": "user-42", "user_hash": hash}); r.status != 403 {
		t.Errorf("old hash after rotation: %d %s", r.status, r.raw)
	}
	if r := init(map[string]any{"user_id": "user-42", "user_hash": domain.UserHash(fresh, "user-42")}); r.status != 200 || r.body["verified"] != true {
		t.Errorf("new hash after rotation: %d %s", r.status, r.raw)
	}
	if got := e.api("GET", "/api/v1/agents/"+e.agent.ID, nil).str("identity_secret"); got != fresh {
		t.Errorf("GET after rotation shows %q, want %q", got, fresh)
	}

	// require_identity: anonymous and unsigned visitors are refused.
	if r := e.api("PATCH", "/api/v1/agents/"+e.agent.ID, `{"config":{"greeting":"Hi","require_identity":true}}`); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.raw)
	}
	for _, body := range []map[string]any{{}, {"user_id": "user-42"}} {
		if r := init(body); r.status != 403 || r.str("error") != refusedIdentity {
			t.Errorf("require_identity %v: %d %s", body, r.status, r.raw)
		}
	}
	if r := init(map[string]any{"user_id": "user-42", "user_hash": domain.UserHash(fresh, "user-42")}); r.status != 200 {
		t.Errorf("require_identity, signed: %d %s", r.status, r.raw)
	}
	if cfg := init(map[string]any{"user_id": "u", "user_hash": domain.UserHash(fresh, "u")}).body["config"].(map[string]any); cfg["require_identity"] != nil {
		t.Errorf("require_identity shown to visitors: %v", cfg)
	}

	// Privacy requests by the verified user id.
	exp := e.api("GET", "/api/v1/visitors/user-42/export", nil)
	if exp.status != 200 || !strings.Contains(string(exp.raw), "What are your opening hours?") {
		t.Errorf("export by user id: %d %s", exp.status, exp.raw)
	}

	// Another account cannot read or rotate the secret.
	_, otherToken := e.newAccount("other@example.com", domain.Limits{MonthlyConversations: 10})
	for _, req := range []struct{ method, path string }{
		{"GET", "/api/v1/agents/" + e.agent.ID},
		{"POST", "/api/v1/agents/" + e.agent.ID + "/identity-secret"},
	} {
		if r := e.do(req.method, req.path, nil, map[string]string{"Authorization": "Bearer " + otherToken}); r.status != 404 {
			t.Errorf("another account's %s %s: %d %s", req.method, req.path, r.status, r.raw)
		}
	}
}

func storeFilterUser(userID string) store.ConversationFilter {
	return store.ConversationFilter{UserID: userID}
}
