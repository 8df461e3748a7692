package agentadmin

import (
	"context"
	"parley/internal/audit"

	"parley/internal/secret"
)

// IdentitySecret is the agent's identity secret (identity verification:
// the key of visitors' user_hash). An agent gets one the first time its
// owner asks for it; until then no hash matches. Concurrent first readers
// get the same one.
func (s *Service) IdentitySecret(ctx context.Context, accountID, agentID string) (string, error) {
	cur, err := s.o.Store.IdentitySecret(ctx, accountID, agentID)
	if err != nil || cur != "" {
		return cur, err
	}
	return s.o.Store.SetIdentitySecret(ctx, accountID, agentID, secret.IdentitySecret(), true)
}

// RotateIdentitySecret replaces the agent's identity secret with a new
// one and returns it: every user_hash made with the old one stops
// matching at once (the secret is read on each verified init).
func (s *Service) RotateIdentitySecret(ctx context.Context, accountID, agentID string) (string, error) {
	sec, err := s.o.Store.SetIdentitySecret(ctx, accountID, agentID, secret.IdentitySecret(), false)
	if err != nil {
		return "", err
	}
	s.o.Audit.Record(ctx, accountID, audit.IdentitySecretRotate, audit.Target("agent", agentID))
	return sec, nil
}
