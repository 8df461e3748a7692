package agentadmin

import (
	"context"
	"slices"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/secret"
)

func newWidgetKey() string { return secret.WidgetKey() }

// NewKey gives the agent a new widget key and deactivates its others, in
// one transaction (store.RotateKey): a new key is a rotation, and the
// usual reason for one is a key that should stop working. An owner who
// needs an old key during a transition activates it again (SetKeyActive).
func (s *Service) NewKey(ctx context.Context, accountID, agentID string) (domain.WidgetKey, error) {
	k, err := s.o.Store.RotateKey(ctx, accountID, agentID, s.o.NewKey())
	if err != nil {
		return domain.WidgetKey{}, err
	}
	s.o.Audit.Record(ctx, accountID, audit.KeyRotate, audit.Target("key", k.Key))
	return k, nil
}

// Keys are the agent's widget keys, oldest first.
func (s *Service) Keys(ctx context.Context, accountID, agentID string) ([]domain.WidgetKey, error) {
	return s.o.Store.Keys(ctx, accountID, agentID)
}

// EmbedKey is the key to embed: the newest active one (keys oldest
// first, as Keys lists them), "" when none is active. After a rotation it
// is the new key; after an old one is reactivated, still the new one.
func EmbedKey(keys []domain.WidgetKey) string {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].Active {
			return keys[i].Key
		}
	}
	return ""
}

// SetKeyActive activates or deactivates one of the account's keys, of
// whichever agent; another account's key is domain.ErrNotFound.
func (s *Service) SetKeyActive(ctx context.Context, accountID, key string, active bool) (domain.WidgetKey, error) {
	return s.setKeyActive(ctx, accountID, key, active)
}

// setKeyActive is the one write of both, and its audit entry.
func (s *Service) setKeyActive(ctx context.Context, accountID, key string, active bool) (domain.WidgetKey, error) {
	k, err := s.o.Store.SetKeyActive(ctx, accountID, key, active)
	if err != nil {
		return domain.WidgetKey{}, err
	}
	action := audit.KeyDeactivate
	if active {
		action = audit.KeyActivate
	}
	s.o.Audit.Record(ctx, accountID, action, audit.Target("key", k.Key))
	return k, nil
}

// SetAgentKeyActive is SetKeyActive for a key that must be the agent's:
// a key of another agent, even of the same account, is
// domain.ErrNotFound.
func (s *Service) SetAgentKeyActive(ctx context.Context, accountID, agentID, key string, active bool) (domain.WidgetKey, error) {
	keys, err := s.o.Store.Keys(ctx, accountID, agentID)
	if err != nil {
		return domain.WidgetKey{}, err
	}
	// A key never changes agents, so checking first is as good as
	// checking in the update.
	if !slices.ContainsFunc(keys, func(k domain.WidgetKey) bool { return k.Key == key }) {
		return domain.WidgetKey{}, domain.ErrNotFound
	}
	return s.setKeyActive(ctx, accountID, key, active)
}
