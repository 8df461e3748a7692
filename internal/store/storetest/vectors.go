package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

func testVectors(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	other := setup(t, s, many)
	a, b := store.TextHash("Refunds within 30 days."), store.TextHash("We ship worldwide.")
	if a == b || len(a) != 64 || store.TextHash("Refunds within 30 days.") != a {
		t.Fatalf("TextHash: %q, %q", a, b)
	}

	got, err := s.Vectors(ctx, f.agent.ID, "m1")
	noErr(t, "Vectors", err)
	if len(got) != 0 {
		t.Fatalf("vectors of a new agent: %v", got)
	}
	noErr(t, "PutVectors", s.PutVectors(ctx, f.agent.ID, "m1", []store.Vector{{Hash: a, Vec: []float32{0.5, -1.25, 3}}, {Hash: b, Vec: []float32{1, 0, 0}}}))
	noErr(t, "PutVectors other model", s.PutVectors(ctx, f.agent.ID, "m2", []store.Vector{{Hash: a, Vec: []float32{9, 9}}}))
	noErr(t, "PutVectors other agent", s.PutVectors(ctx, other.agent.ID, "m1", []store.Vector{{Hash: a, Vec: []float32{7}}}))
	// The same hash again replaces the vector.
	noErr(t, "PutVectors again", s.PutVectors(ctx, f.agent.ID, "m1", []store.Vector{{Hash: b, Vec: []float32{0, 1, 0}}}))

	got, err = s.Vectors(ctx, f.agent.ID, "m1")
	noErr(t, "Vectors", err)
	if len(got) != 2 || !slices.Equal(got[a], []float32{0.5, -1.25, 3}) || !slices.Equal(got[b], []float32{0, 1, 0}) {
		t.Fatalf("Vectors m1 = %v", got)
	}
	got, _ = s.Vectors(ctx, f.agent.ID, "m2")
	if len(got) != 1 || !slices.Equal(got[a], []float32{9, 9}) {
		t.Fatalf("Vectors m2 = %v (a model's vectors are its own)", got)
	}

	// A bad vector is refused whole; an unknown agent is not found.
	err = s.PutVectors(ctx, f.agent.ID, "m1", []store.Vector{{Hash: "x", Vec: []float32{1}}, {Hash: "y", Vec: nil}})
	if !errors.Is(err, store.ErrBadVector) {
		t.Fatalf("PutVectors with an empty vector = %v", err)
	}
	wantErr(t, "PutVectors for no agent", s.PutVectors(ctx, "ag_missing", "m1", []store.Vector{{Hash: a, Vec: []float32{1}}}), domain.ErrNotFound)

	// Vectors stored after before are kept, whatever they are.
	stored := time.Now().Add(-time.Hour)
	n, err := s.KeepVectors(ctx, f.agent.ID, "m1", nil, stored)
	noErr(t, "KeepVectors before", err)
	if got, _ := s.Vectors(ctx, f.agent.ID, "m1"); n != 0 || len(got) != 2 {
		t.Fatalf("KeepVectors of an hour ago deleted %d, left %v", n, got)
	}

	// KeepVectors drops the other model's and the text that went.
	n, err = s.KeepVectors(ctx, f.agent.ID, "m1", []string{b}, time.Now().Add(time.Second))
	noErr(t, "KeepVectors", err)
	got1, _ := s.Vectors(ctx, f.agent.ID, "m1")
	got2, _ := s.Vectors(ctx, f.agent.ID, "m2")
	if n != 2 || len(got1) != 1 || got1[b] == nil || len(got2) != 0 {
		t.Fatalf("KeepVectors deleted %d; left m1 %v, m2 %v", n, got1, got2)
	}
	got, _ = s.Vectors(ctx, other.agent.ID, "m1")
	if len(got) != 1 {
		t.Fatalf("KeepVectors reached another agent: %v", got)
	}
	n, err = s.KeepVectors(ctx, f.agent.ID, "m1", nil, time.Now().Add(time.Second))
	noErr(t, "KeepVectors none", err)
	if got, _ := s.Vectors(ctx, f.agent.ID, "m1"); n != 1 || len(got) != 0 {
		t.Fatalf("KeepVectors(nil) deleted %d, left %v", n, got)
	}
}
