package agentadmin

import "parley/internal/domain"

// ErrName is a chatbot name outside the rule (trimmed, 1 to MaxName
// characters). It is a *domain.InvalidError with the management API's
// text; compare with errors.Is.
var ErrName error = &domain.InvalidError{Msg: "chatbot_name must be 1 to 100 characters"}

// ConfigError is an agent config that may not be saved: Err says why, in
// the management API's words (its 400's text). Endpoint tells a refusal of
// the endpoint check (Options.CheckEndpoint; Err is then the check's own
// error, an *outbound.Refusal for a private address) from a breach of the
// config's own rules (Err a *domain.InvalidError).
type ConfigError struct {
	Err      error
	Endpoint bool
}

func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap gives the cause and, for the HTTP layer, a *domain.InvalidError
// with the same text: a 400.
func (e *ConfigError) Unwrap() []error {
	return []error{e.Err, &domain.InvalidError{Msg: e.Err.Error()}}
}
