package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrConfigNotObject: an agent's config must be a JSON object.
var ErrConfigNotObject = errors.New("agent config must be a JSON object")

// CompactConfig validates an agent config and returns its compact form, so
// what a store reads back does not depend on the caller's formatting.
// Empty is {}.
func CompactConfig(raw json.RawMessage) (string, error) {
	if err := CheckConfig(raw); err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}", nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", fmt.Errorf("agent config: %w", err)
	}
	if b.Bytes()[0] != '{' {
		return "", ErrConfigNotObject
	}
	return b.String(), nil
}
