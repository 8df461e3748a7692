package storetest

import (
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testRetention: the setting defaults to 0 (keep forever) and is stored
// per account; RetainingAccounts lists only accounts with a setting.
// PurgeConversations deletes the account's conversations whose last
// message (or start, without messages) is before the cutoff, at most
// limit per call, with their messages and token counts, cached reads
// included; recent ones and other accounts' old ones stay.
func testRetention(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)

	days, err := s.RetentionDays(ctx, a.account.ID)
	noErr(t, "RetentionDays", err)
	if days != 0 {
		t.Errorf("default retention %d, want 0", days)
	}
	_, err = s.RetentionDays(ctx, "acc_unknown")
	wantErr(t, "RetentionDays of an unknown account", err, domain.ErrNotFound)
	wantErr(t, "SetRetentionDays of an unknown account", s.SetRetentionDays(ctx, "acc_unknown", 3), domain.ErrNotFound)
	noErr(t, "SetRetentionDays", s.SetRetentionDays(ctx, a.account.ID, 30))
	if days, err := s.RetentionDays(ctx, a.account.ID); err != nil || days != 30 {
		t.Errorf("retention after set %d, %v, want 30", days, err)
	}
	ret, err := s.RetainingAccounts(ctx)
	noErr(t, "RetainingAccounts", err)
	if len(ret) != 1 || ret[0] != (store.AccountRetention{AccountID: a.account.ID, Days: 30}) {
		t.Errorf("RetainingAccounts %+v, want only %s with 30", ret, a.account.ID)
	}

	cutoff := base.Add(30 * 24 * time.Hour)
	newConv := func(f fixture, start time.Time, msgs ...time.Time) domain.Conversation {
		t.Helper()
		c, err := s.CreateConversation(ctx, f.newConversation(start))
		noErr(t, "CreateConversation", err)
		for _, at := range msgs {
			add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: "hi", CreatedAt: at})
		}
		return c
	}
	var old []domain.Conversation
	for i := range 3 {
		old = append(old, newConv(a, base, base.Add(time.Duration(i)*time.Hour)))
	}
	add(t, s, store.NewMessage{ConversationID: old[0].ID, Role: domain.RoleAI, Text: "hello", CreatedAt: base.Add(time.Minute),
		RequireMode: domain.ModeAI, Tokens: domain.Tokens{Prompt: 50, Completion: 5}})
	oldEmpty := newConv(a, base)                                       // no message: its start counts
	revived := newConv(a, base, base, cutoff.Add(time.Millisecond))    // started long ago, last message recent
	recent := newConv(a, cutoff.Add(time.Hour), cutoff.Add(time.Hour)) // all recent
	otherAccount := newConv(b, base, base)                             // another account's old one
	atCutoff := newConv(a, base, cutoff)                               // last message exactly at the cutoff: kept
	old = append(old, oldEmpty)

	// Fill whatever a store caches of the conversations about to go.
	for _, c := range old {
		_, err := s.Conversation(ctx, c.ID)
		noErr(t, "Conversation", err)
		_, err = s.PollState(ctx, c.ID)
		noErr(t, "PollState", err)
	}

	n, err := s.PurgeConversations(ctx, a.account.ID, cutoff, 3)
	noErr(t, "PurgeConversations", err)
	if n != 3 {
		t.Fatalf("first batch deleted %d, want the limit 3", n)
	}
	n, err = s.PurgeConversations(ctx, a.account.ID, cutoff, 3)
	noErr(t, "PurgeConversations", err)
	if n != 1 {
		t.Fatalf("second batch deleted %d, want 1", n)
	}
	n, err = s.PurgeConversations(ctx, a.account.ID, cutoff, 3)
	noErr(t, "PurgeConversations", err)
	if n != 0 {
		t.Fatalf("third batch deleted %d, want 0", n)
	}
	for _, c := range old {
		_, err := s.Conversation(ctx, c.ID)
		wantErr(t, "Conversation after the purge", err, domain.ErrNotFound)
		_, err = s.PollState(ctx, c.ID)
		wantErr(t, "PollState after the purge", err, domain.ErrNotFound)
		if ms := messages(t, s, c.ID); len(ms) != 0 {
			t.Errorf("messages of %s after the purge: %+v", c.ID, ms)
		}
		tk, err := s.ConversationTokens(ctx, c.ID)
		noErr(t, "ConversationTokens", err)
		if tk != (domain.Tokens{}) {
			t.Errorf("tokens of %s after the purge: %+v", c.ID, tk)
		}
	}
	for _, c := range []domain.Conversation{revived, recent, otherAccount, atCutoff} {
		if _, err := s.Conversation(ctx, c.ID); err != nil {
			t.Errorf("conversation %s that must stay: %v", c.ID, err)
		}
		if ms := messages(t, s, c.ID); len(ms) == 0 {
			t.Errorf("messages of %s that must stay are gone", c.ID)
		}
	}
	if n, err := s.PurgeConversations(ctx, a.account.ID, cutoff, 0); err != nil || n != 0 {
		t.Errorf("a zero limit deleted %d, %v", n, err)
	}
	noErr(t, "SetRetentionDays 0", s.SetRetentionDays(ctx, a.account.ID, 0))
	if ret, err := s.RetainingAccounts(ctx); err != nil || len(ret) != 0 {
		t.Errorf("RetainingAccounts after keep-forever %+v, %v", ret, err)
	}
}
