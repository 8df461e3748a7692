package storetest

import (
	"slices"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// activeKeys lists the agent's active keys, oldest first.
func activeKeys(t *testing.T, s store.Store, accountID, agentID string) []string {
	t.Helper()
	keys, err := s.Keys(t.Context(), accountID, agentID)
	noErr(t, "Keys", err)
	var on []string
	for _, k := range keys {
		if k.Active {
			on = append(on, k.Key)
		}
	}
	return on
}

// testRotateKey: a new key replaces every active key of its agent, and of
// that agent only; a rotation that fails changes nothing.
func testRotateKey(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	acc, ag := f.account.ID, f.agent.ID
	second := secret.WidgetKey()
	_, err := s.CreateKey(ctx, acc, ag, second) // two active keys before the rotation
	noErr(t, "CreateKey", err)
	sibling, siblingKey := newAgent(t, s, acc)

	fresh := secret.WidgetKey()
	k, err := s.RotateKey(ctx, acc, ag, fresh)
	noErr(t, "RotateKey", err)
	if k.Key != fresh || k.AgentID != ag || k.AccountID != acc || !k.Active || k.CreatedAt.IsZero() {
		t.Errorf("RotateKey = %+v", k)
	}
	keys, err := s.Keys(ctx, acc, ag)
	noErr(t, "Keys", err)
	if len(keys) != 3 || keys[2].Key != fresh {
		t.Fatalf("Keys after rotation = %+v, want the two old ones and %s last", keys, fresh)
	}
	if on := activeKeys(t, s, acc, ag); !slices.Equal(on, []string{fresh}) {
		t.Errorf("active keys after rotation = %v, want only %s", on, fresh)
	}
	for _, old := range []string{f.key, second} {
		_, err := s.AgentByKey(ctx, old)
		wantErr(t, "AgentByKey of a rotated-out key", err, domain.ErrKeyInvalid)
	}
	if a, err := s.AgentByKey(ctx, fresh); err != nil || a.ID != ag {
		t.Errorf("AgentByKey of the new key = %v, %v", a.ID, err)
	}
	if on := activeKeys(t, s, acc, sibling.ID); !slices.Equal(on, []string{siblingKey}) {
		t.Errorf("another agent's keys after the rotation = %v, want %s untouched", on, siblingKey)
	}

	// An old key reactivated for a transition works beside the new one,
	// until the next rotation.
	_, err = s.SetKeyActive(ctx, acc, f.key, true)
	noErr(t, "SetKeyActive", err)
	if on := activeKeys(t, s, acc, ag); !slices.Equal(on, []string{f.key, fresh}) {
		t.Errorf("active keys after reactivation = %v", on)
	}

	// Failures roll the deactivation back.
	_, err = s.RotateKey(ctx, acc, ag, fresh)
	wantErr(t, "RotateKey to a taken key", err, domain.ErrConflict)
	_, err = s.RotateKey(ctx, acc, sibling.ID, fresh)
	wantErr(t, "RotateKey to another agent's key", err, domain.ErrConflict)
	if on := activeKeys(t, s, acc, ag); !slices.Equal(on, []string{f.key, fresh}) {
		t.Errorf("active keys after failed rotations = %v, want both still active", on)
	}
	if on := activeKeys(t, s, acc, sibling.ID); !slices.Equal(on, []string{siblingKey}) {
		t.Errorf("the sibling's keys after a failed rotation = %v", on)
	}

	_, err = s.RotateKey(ctx, acc, secret.AgentID(), secret.WidgetKey())
	wantErr(t, "RotateKey of a missing agent", err, domain.ErrNotFound)
	other := setup(t, s, many)
	_, err = s.RotateKey(ctx, acc, other.agent.ID, secret.WidgetKey())
	wantErr(t, "RotateKey of another account's agent", err, domain.ErrNotFound)
	if on := activeKeys(t, s, other.account.ID, other.agent.ID); !slices.Equal(on, []string{other.key}) {
		t.Errorf("another account's keys after a refused rotation = %v", on)
	}
}

// testRotateKeyConcurrent: rotations at once each succeed, and exactly one
// key stays active — one of theirs. Without one transaction per rotation
// two of them could each turn off only the keys they saw, leaving both
// new keys on.
func testRotateKeyConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	const callers = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	var made []string
	var failed error
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			k, err := s.RotateKey(ctx, f.account.ID, f.agent.ID, secret.WidgetKey())
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = err
				return
			}
			made = append(made, k.Key)
		})
	}
	close(start)
	wg.Wait()
	noErr(t, "RotateKey", failed)
	on := activeKeys(t, s, f.account.ID, f.agent.ID)
	if len(on) != 1 || !slices.Contains(made, on[0]) {
		t.Fatalf("after %d concurrent rotations the active keys are %v; want exactly one of %v", callers, on, made)
	}
	// And it is the newest, the one an embed code shows.
	keys, err := s.Keys(ctx, f.account.ID, f.agent.ID)
	noErr(t, "Keys", err)
	if len(keys) != callers+1 || keys[len(keys)-1].Key != on[0] {
		t.Errorf("Keys = %+v; want %d keys, the active one (%s) last", keys, callers+1, on[0])
	}
}
