package storetest

import (
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testIdentitySecrets: an agent has no secret until one is set; with
// onlyIfNone the first one stays (two first readers agree); without it the
// secret is replaced (rotation). Another account's agent is not found.
func testIdentitySecrets(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)

	got, err := s.IdentitySecret(ctx, a.account.ID, a.agent.ID)
	noErr(t, "IdentitySecret", err)
	if got != "" {
		t.Fatalf("a new agent's secret is %q, want none", got)
	}
	got, err = s.SetIdentitySecret(ctx, a.account.ID, a.agent.ID, "first", true)
	noErr(t, "SetIdentitySecret", err)
	if got != "first" {
		t.Fatalf("first SetIdentitySecret = %q", got)
	}
	got, err = s.SetIdentitySecret(ctx, a.account.ID, a.agent.ID, "second", true)
	noErr(t, "SetIdentitySecret onlyIfNone", err)
	if got != "first" {
		t.Fatalf("SetIdentitySecret onlyIfNone over a secret = %q, want the first kept", got)
	}
	got, err = s.SetIdentitySecret(ctx, a.account.ID, a.agent.ID, "rotated", false)
	noErr(t, "SetIdentitySecret rotate", err)
	if got != "rotated" {
		t.Fatalf("rotation = %q", got)
	}
	if got, _ := s.IdentitySecret(ctx, a.account.ID, a.agent.ID); got != "rotated" {
		t.Fatalf("IdentitySecret after rotation = %q", got)
	}
	if _, err := s.IdentitySecret(ctx, b.account.ID, a.agent.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another account's IdentitySecret: %v, want ErrNotFound", err)
	}
	if _, err := s.SetIdentitySecret(ctx, b.account.ID, a.agent.ID, "stolen", false); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another account's SetIdentitySecret: %v, want ErrNotFound", err)
	}
	if got, _ := s.IdentitySecret(ctx, a.account.ID, a.agent.ID); got != "rotated" {
		t.Fatalf("secret after another account's attempt = %q", got)
	}
}

// testConversationIdentity: a conversation keeps the visitor's identity:
// a verified user id with its name and email, or only a name and email
// (unverified; a user id given as unverified is never stored). The
// UserID filter lists one user's conversations, newest first, in the
// account only; the privacy requests find a verified user's conversations
// by user id too, and never by an unverified claim.
func testConversationIdentity(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)
	create := func(f fixture, visitor string, id domain.VerifiedIdentity, at time.Time) domain.Conversation {
		t.Helper()
		n := f.newConversation(at)
		n.VisitorID, n.Identity = visitor, id
		c, err := s.CreateConversation(ctx, n)
		noErr(t, "CreateConversation", err)
		return c
	}
	ana := domain.VerifiedIdentity{UserID: "user-42", Name: "Ana", Email: "ana@example.com", Verified: true}
	first := create(a, "v_phone", ana, base)
	second := create(a, "v_laptop", ana, base.Add(time.Hour))
	claim := create(a, "v_claim", domain.VerifiedIdentity{UserID: "user-42", Name: "Mallory"}, base.Add(2*time.Hour))
	anon := create(a, "v_anon", domain.VerifiedIdentity{}, base)
	otherAccount := create(b, "v_b", ana, base)

	c, err := s.Conversation(ctx, second.ID)
	noErr(t, "Conversation", err)
	if c.UserID != "user-42" || c.Name != "Ana" || c.Email != "ana@example.com" || !c.Verified {
		t.Errorf("verified conversation read back %+v", c)
	}
	c, err = s.Conversation(ctx, claim.ID)
	noErr(t, "Conversation", err)
	if c.UserID != "" || c.Name != "Mallory" || c.Verified {
		t.Errorf("unverified conversation read back %+v (user id must not be kept)", c)
	}
	if c, _ := s.Conversation(ctx, anon.ID); c.UserID != "" || c.Name != "" || c.Email != "" || c.Verified {
		t.Errorf("anonymous conversation read back %+v", c)
	}

	page, err := s.Conversations(ctx, a.account.ID, store.ConversationFilter{UserID: "user-42"})
	noErr(t, "Conversations by user", err)
	if ids := convIDs(page.Conversations); !equalStrings(ids, []string{second.ID, first.ID}) {
		t.Errorf("user's conversations %v, want %v", ids, []string{second.ID, first.ID})
	}
	page, err = s.Conversations(ctx, a.account.ID, store.ConversationFilter{UserID: "user-42", Limit: 1})
	noErr(t, "Conversations by user, one", err)
	if len(page.Conversations) != 1 || page.Conversations[0].ID != second.ID {
		t.Errorf("user's latest conversation %v", convIDs(page.Conversations))
	}
	page, err = s.Conversations(ctx, b.account.ID, store.ConversationFilter{UserID: "user-42"})
	noErr(t, "Conversations by user, other account", err)
	if ids := convIDs(page.Conversations); !equalStrings(ids, []string{otherAccount.ID}) {
		t.Errorf("other account's user conversations %v", ids)
	}

	got, err := s.VisitorData(ctx, a.account.ID, "user-42")
	noErr(t, "VisitorData by user id", err)
	var ids []string
	for _, vc := range got {
		ids = append(ids, vc.Conversation.ID)
	}
	if !equalStrings(ids, []string{first.ID, second.ID}) {
		t.Errorf("VisitorData by user id %v, want %v (never the unverified claim)", ids, []string{first.ID, second.ID})
	}
	if _, err := s.VisitorData(ctx, a.account.ID, ""); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("VisitorData of the empty id: %v, want ErrNotFound", err)
	}
	if err := s.DeleteVisitor(ctx, a.account.ID, ""); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("DeleteVisitor of the empty id: %v, want ErrNotFound", err)
	}
	noErr(t, "DeleteVisitor by user id", s.DeleteVisitor(ctx, a.account.ID, "user-42"))
	for _, id := range []string{first.ID, second.ID} {
		if _, err := s.Conversation(ctx, id); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("conversation %s after DeleteVisitor by user id: %v", id, err)
		}
	}
	for _, id := range []string{claim.ID, anon.ID, otherAccount.ID} {
		if _, err := s.Conversation(ctx, id); err != nil {
			t.Errorf("conversation %s deleted with another's data: %v", id, err)
		}
	}
}

func convIDs(cs []domain.Conversation) []string {
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}
