package agentadmin

import (
	"bytes"
	"encoding/json"
	"errors"

	"parley/internal/domain"
	"parley/internal/initlimit"
)

// checkConfig is the one place an agent config's own rules are applied
// before it is saved, through either the API or the dashboard: a JSON
// object (returned compact) whose "limits" are valid (initlimit.Check).
// A breach is a *ConfigError whose Err is a *domain.InvalidError with the
// management API's text.
//
// The seam for the typed agent config (issue #15 point 1): decoding into
// domain.AgentConfig and calling its Validate belongs here, in place of
// this body, keeping the *ConfigError wrapping.
func checkConfig(raw json.RawMessage) (json.RawMessage, error) {
	c := bytes.TrimSpace(raw)
	notObject := &ConfigError{Err: domain.Invalid("config must be a JSON object")}
	if len(c) == 0 || c[0] != '{' {
		return nil, notObject
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c); err != nil {
		return nil, notObject
	}
	if err := initlimit.Check(buf.Bytes()); err != nil {
		var invalid *domain.InvalidError
		if !errors.As(err, &invalid) {
			invalid = &domain.InvalidError{Msg: err.Error()}
		}
		return nil, &ConfigError{Err: invalid}
	}
	return buf.Bytes(), nil
}
