package storetest

import (
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testAuditLog: entries read back newest first as written, in pages that
// neither skip nor repeat, filtered by action, never another account's;
// adding one deletes the account's entries older than keepAfter and no
// other account's.
func testAuditLog(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)

	add := func(acc, action, target string, at time.Time, keepAfter time.Time) store.AuditEntry {
		t.Helper()
		e, err := s.AddAuditEntry(ctx, store.AuditEntry{
			AccountID: acc, At: at, ActorType: "user", ActorID: "usr_1", Actor: "ana@example.com",
			IP: "192.0.2.1", Action: action, Target: target,
		}, keepAfter)
		noErr(t, "AddAuditEntry", err)
		if e.Seq <= 0 || !e.At.Equal(at) {
			t.Fatalf("added %+v", e)
		}
		return e
	}
	var want []string
	for i, action := range []string{"conversation.takeover", "conversation.reply", "conversation.release", "key.rotate", "conversation.takeover"} {
		e := add(a.account.ID, action, "conversation:cv_"+string(rune('a'+i)), base.Add(time.Duration(i)*time.Minute), time.Time{})
		want = append([]string{e.Target}, want...)
	}
	add(b.account.ID, "conversation.takeover", "conversation:cv_other", base, time.Time{})

	all, err := s.AuditEntries(ctx, a.account.ID, store.AuditFilter{})
	noErr(t, "AuditEntries", err)
	if got := targets(all); !equalStrings(got, want) {
		t.Fatalf("entries %v, want %v (newest first, only this account's)", got, want)
	}
	first := all[0]
	if first.AccountID != a.account.ID || first.Actor != "ana@example.com" || first.ActorType != "user" ||
		first.ActorID != "usr_1" || first.IP != "192.0.2.1" || first.Action != "conversation.takeover" ||
		!first.At.Equal(base.Add(4*time.Minute)) || first.At.Location() != time.UTC {
		t.Errorf("newest entry %+v", first)
	}

	// Pages of two: 2 + 2 + 1, each starting below the last one's seq.
	var paged []string
	before := int64(0)
	for range 4 {
		page, err := s.AuditEntries(ctx, a.account.ID, store.AuditFilter{Before: before, Limit: 2})
		noErr(t, "AuditEntries page", err)
		if len(page) == 0 {
			break
		}
		if len(page) > 2 {
			t.Fatalf("page of %d entries, limit 2", len(page))
		}
		paged = append(paged, targets(page)...)
		before = page[len(page)-1].Seq
	}
	if !equalStrings(paged, want) {
		t.Errorf("paged %v, want %v", paged, want)
	}

	takeovers, err := s.AuditEntries(ctx, a.account.ID, store.AuditFilter{Action: "conversation.takeover"})
	noErr(t, "AuditEntries by action", err)
	if got := targets(takeovers); !equalStrings(got, []string{want[0], want[4]}) {
		t.Errorf("takeovers %v, want %v", got, []string{want[0], want[4]})
	}

	none, err := s.AuditEntries(ctx, "acc_nobody", store.AuditFilter{})
	noErr(t, "AuditEntries of an unknown account", err)
	if none == nil || len(none) != 0 {
		t.Errorf("unknown account's entries %#v, want an empty list", none)
	}

	// Keeping only what is newer than base+3m deletes the account's three
	// oldest entries and keeps b's (older too).
	add(a.account.ID, "key.rotate", "key:pk_new", base.Add(time.Hour), base.Add(3*time.Minute))
	all, err = s.AuditEntries(ctx, a.account.ID, store.AuditFilter{})
	noErr(t, "AuditEntries after pruning", err)
	if got := targets(all); !equalStrings(got, []string{"key:pk_new", want[0], want[1]}) {
		t.Errorf("after pruning %v", got)
	}
	other, err := s.AuditEntries(ctx, b.account.ID, store.AuditFilter{})
	noErr(t, "AuditEntries of b", err)
	if len(other) != 1 {
		t.Errorf("b's entries after a's pruning: %+v", other)
	}

	tok, err := s.CreateAPIToken(ctx, a.account.ID, "ci deploy", []byte("hash-of-ci"))
	noErr(t, "CreateAPIToken", err)
	got, err := s.APITokenByHash(ctx, []byte("hash-of-ci"))
	noErr(t, "APITokenByHash", err)
	if got.ID != tok.ID || got.Name != "ci deploy" || got.AccountID != a.account.ID {
		t.Errorf("APITokenByHash %+v, want %+v", got, tok)
	}
	if _, err := s.APITokenByHash(ctx, []byte("no such hash")); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("APITokenByHash of an unknown hash: %v, want ErrNotFound", err)
	}

	if _, err := s.AddAuditEntry(ctx, store.AuditEntry{AccountID: a.account.ID, Action: "x\x00y"}, time.Time{}); !errors.Is(err, store.ErrBadText) {
		t.Errorf("a NUL in an action: %v, want ErrBadText", err)
	}
}

func targets(es []store.AuditEntry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.Target)
	}
	return out
}
