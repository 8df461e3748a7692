package audit_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"parley/internal/audit"
	"parley/internal/store"
	"parley/internal/store/sqlite/sqlitetest"
)

var base = time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)

// The actor comes from the context; List pages newest first with a Next
// that is 0 on the last page, even at the largest page size.
func TestRecordAndList(t *testing.T) {
	t.Parallel()
	st, ag := sqlitetest.Agent(t)
	acc := struct{ ID string }{ag.AccountID}
	now := base
	svc := audit.New(audit.Options{Store: st, Now: func() time.Time { return now }})
	ctx := audit.WithActor(t.Context(), audit.Actor{Type: audit.ActorUser, ID: "usr_1", Name: "ana@example.com", IP: "192.0.2.7"})
	for i := range store.MaxAuditPageSize + 3 {
		now = base.Add(time.Duration(i) * time.Second)
		svc.Record(ctx, acc.ID, audit.ConversationTakeover, audit.Target("conversation", "cv_"+string(rune('a'+i%26))))
	}
	svc.Record(t.Context(), acc.ID, audit.KeyRotate, "key:pk_1") // no actor: the system

	p, err := svc.List(t.Context(), acc.ID, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != store.AuditPageSize || p.Next == 0 {
		t.Fatalf("first page: %d entries, next %d", len(p.Entries), p.Next)
	}
	if e := p.Entries[0]; e.Action != audit.KeyRotate || e.ActorType != audit.ActorSystem || e.Actor != "system" {
		t.Errorf("newest %+v, want the system's key.rotate", e)
	}
	if e := p.Entries[1]; e.Action != audit.ConversationTakeover || e.Actor != "ana@example.com" || e.ActorID != "usr_1" ||
		e.IP != "192.0.2.7" || !e.At.Equal(now) {
		t.Errorf("second %+v", e)
	}
	seen := len(p.Entries)
	for next := p.Next; next != 0; {
		p, err := svc.List(t.Context(), acc.ID, audit.Filter{Before: next, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) > store.MaxAuditPageSize {
			t.Fatalf("page of %d", len(p.Entries))
		}
		seen += len(p.Entries)
		next = p.Next
	}
	if want := store.MaxAuditPageSize + 4; seen != want {
		t.Errorf("paged through %d entries, want %d", seen, want)
	}
	all, err := svc.List(t.Context(), acc.ID, audit.Filter{Limit: store.MaxAuditPageSize, Action: audit.KeyRotate})
	if err != nil || len(all.Entries) != 1 || all.Next != 0 {
		t.Errorf("key.rotate only: %+v, %v", all, err)
	}
}

// A failed write is logged with the entry and does not panic or block; a
// nil service records nothing.
func TestRecordFailureIsLogged(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	svc := audit.New(audit.Options{Store: failing{}, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	svc.Record(t.Context(), "acc_1", audit.VisitorDelete, "visitor:v_1")
	if out := buf.String(); !strings.Contains(out, "audit entry not written") || !strings.Contains(out, "visitor.delete") || !strings.Contains(out, "disk full") {
		t.Errorf("log %q", out)
	}
	var none *audit.Service
	none.Record(t.Context(), "acc_1", audit.VisitorDelete, "visitor:v_1")
}

type failing struct{ store.AuditLog }

func (failing) AddAuditEntry(context.Context, store.AuditEntry, time.Time) (store.AuditEntry, error) {
	return store.AuditEntry{}, errors.New("disk full")
}
