package agentadmin

import (
	"bytes"
	"context"
	"encoding/json"

	"parley/internal/domain"
)

// checkConfig is the one place an agent config's own rules are applied
// before it is saved, through either the API or the dashboard: a JSON
// object that decodes strictly (domain.ParseAgentConfig: a known key of
// the wrong type is refused, unknown keys are kept) and passes
// domain.AgentConfig.Validate. A breach is a *ConfigError whose Err is a
// *domain.ConfigError naming the key, with the management API's text.
func checkConfig(raw json.RawMessage) (domain.AgentConfig, error) {
	c := bytes.TrimSpace(raw)
	notObject := &ConfigError{Err: domain.Invalid("config must be a JSON object")}
	if len(c) == 0 || c[0] != '{' {
		return domain.AgentConfig{}, notObject
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c); err != nil {
		return domain.AgentConfig{}, notObject
	}
	cfg, err := domain.ParseAgentConfig(buf.Bytes())
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return domain.AgentConfig{}, &ConfigError{Err: err}
	}
	return cfg, nil
}

// finishConfig derives the config to store from the checked one and the
// stored one (prev; zero on creation) with keep, when set, and applies
// the endpoint check to the result.
func (s *Service) finishConfig(ctx context.Context, cfg, prev domain.AgentConfig, keep KeepSecrets) (json.RawMessage, error) {
	raw := cfg.JSON()
	if keep != nil {
		raw = keep(&cfg, prev)
	}
	if s.o.CheckEndpoint != nil {
		if err := s.o.CheckEndpoint(ctx, cfg); err != nil {
			return nil, &ConfigError{Err: err, Endpoint: true}
		}
	}
	return raw, nil
}
