package agentadmin

import (
	"errors"
	"slices"
	"testing"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// active lists the active keys of keys.
func active(keys []domain.WidgetKey) []string {
	var on []string
	for _, k := range keys {
		if k.Active {
			on = append(on, k.Key)
		}
	}
	return on
}

// A new key is a rotation: it replaces the agent's active keys, which an
// owner can turn on again for a transition.
func TestNewKeyRotates(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ctx := t.Context()
		ag, sibling := f.agent("Helper"), f.agent("Sibling")
		first, siblingKey := f.keys(ag.ID)[0].Key, f.keys(sibling.ID)[0].Key

		k, err := f.svc.NewKey(ctx, f.account, ag.ID)
		if err != nil || !k.Active || k.AgentID != ag.ID || k.Key == first {
			t.Fatalf("NewKey = %+v, %v", k, err)
		}
		keys := f.keys(ag.ID)
		if on := active(keys); !slices.Equal(on, []string{k.Key}) || EmbedKey(keys) != k.Key {
			t.Errorf("after NewKey the active keys are %v (embed %s); want only %s", on, EmbedKey(keys), k.Key)
		}
		if on := active(f.keys(sibling.ID)); !slices.Equal(on, []string{siblingKey}) {
			t.Errorf("NewKey changed another agent's keys: %v", on)
		}
		if _, err := st.AgentByKey(ctx, first); !errors.Is(err, domain.ErrKeyInvalid) {
			t.Errorf("the rotated-out key still resolves: %v", err)
		}

		// The old key back for a transition: both work, the new one is
		// still the one to embed.
		if _, err := f.svc.SetAgentKeyActive(ctx, f.account, ag.ID, first, true); err != nil {
			t.Fatal(err)
		}
		keys = f.keys(ag.ID)
		if on := active(keys); !slices.Equal(on, []string{first, k.Key}) || EmbedKey(keys) != k.Key {
			t.Errorf("after reactivating the old key: active %v, embed %s", on, EmbedKey(keys))
		}

		// Not the account's agent: missing, and nothing changes.
		other := newAccount(t, st)
		if _, err := f.svc.NewKey(ctx, other, ag.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("NewKey from another account: %v", err)
		}
		if _, err := f.svc.NewKey(ctx, f.account, "ag_missing"); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("NewKey of a missing agent: %v", err)
		}
		if on := active(f.keys(ag.ID)); len(on) != 2 {
			t.Errorf("refused rotations changed the keys: %v", on)
		}
	})
}

// A rotation that fails (a key collision) leaves the old keys working.
func TestNewKeyCollision(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ag := f.agent("Helper")
		taken := f.keys(ag.ID)[0].Key
		f.svc.o.NewKey = func() string { return taken }
		if _, err := f.svc.NewKey(t.Context(), f.account, ag.ID); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("NewKey colliding: %v, want ErrConflict", err)
		}
		if on := active(f.keys(ag.ID)); !slices.Equal(on, []string{taken}) {
			t.Errorf("a failed rotation left the active keys %v", on)
		}
	})
}

func TestSetKeyActive(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ctx := t.Context()
		ag, sibling := f.agent("Helper"), f.agent("Sibling")
		key, siblingKey := f.keys(ag.ID)[0].Key, f.keys(sibling.ID)[0].Key

		// Through an agent, only that agent's keys.
		if _, err := f.svc.SetAgentKeyActive(ctx, f.account, ag.ID, siblingKey, false); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("another agent's key through this one: %v, want ErrNotFound", err)
		}
		if on := active(f.keys(sibling.ID)); len(on) != 1 {
			t.Errorf("the other agent's key was changed: %v", on)
		}
		k, err := f.svc.SetAgentKeyActive(ctx, f.account, ag.ID, key, false)
		if err != nil || k.Active || k.Key != key {
			t.Fatalf("SetAgentKeyActive off = %+v, %v", k, err)
		}
		if keys := f.keys(ag.ID); EmbedKey(keys) != "" {
			t.Errorf("no active key, yet EmbedKey = %q", EmbedKey(keys))
		}

		// By key alone (the API's /keys/{key}), any agent of the account.
		if k, err := f.svc.SetKeyActive(ctx, f.account, siblingKey, false); err != nil || k.Active || k.AgentID != sibling.ID {
			t.Errorf("SetKeyActive of the sibling's key = %+v, %v", k, err)
		}

		// Another account's keys and agents are missing.
		other := newAccount(t, st)
		if _, err := f.svc.SetKeyActive(ctx, other, key, true); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("SetKeyActive from another account: %v", err)
		}
		if _, err := f.svc.SetAgentKeyActive(ctx, other, ag.ID, key, true); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("SetAgentKeyActive from another account: %v", err)
		}
		if _, err := f.svc.SetKeyActive(ctx, f.account, secret.WidgetKey(), true); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("SetKeyActive of an unknown key: %v", err)
		}
		if on := active(f.keys(ag.ID)); len(on) != 0 {
			t.Errorf("refused calls turned keys on: %v", on)
		}
	})
}

func TestEmbedKey(t *testing.T) {
	t.Parallel()
	k := func(key string, on bool) domain.WidgetKey { return domain.WidgetKey{Key: key, Active: on} }
	for _, tt := range []struct {
		keys []domain.WidgetKey
		want string
	}{
		{nil, ""},
		{[]domain.WidgetKey{k("a", false)}, ""},
		{[]domain.WidgetKey{k("a", true)}, "a"},
		{[]domain.WidgetKey{k("a", true), k("b", true)}, "b"},
		{[]domain.WidgetKey{k("a", true), k("b", false)}, "a"},
		{[]domain.WidgetKey{k("a", false), k("b", true), k("c", false)}, "b"},
	} {
		if got := EmbedKey(tt.keys); got != tt.want {
			t.Errorf("EmbedKey(%+v) = %q, want %q", tt.keys, got, tt.want)
		}
	}
}
