package domain

import "errors"

// Errors shared across packages. The HTTP layer maps each to a status in
// one place (internal/httpx/errors.go).
var (
	// ErrNotFound: the thing does not exist, or belongs to another account.
	ErrNotFound = errors.New("not found")
	// ErrMessageNotFound: the message a visitor's feedback names is not an
	// AI answer of their conversation (issue 20). A 404 of its own text,
	// told apart from the 403 of a key or conversation that is not theirs.
	ErrMessageNotFound = errors.New("message not found")
	// ErrConflict: a unique value (an email, a key) is taken already.
	ErrConflict = errors.New("already exists")
	// ErrKeyInvalid: the widget key does not exist or is inactive.
	ErrKeyInvalid = errors.New("widget key is invalid or inactive")
	// ErrConversationInvalid: the conversation does not exist, or belongs to
	// another agent or visitor.
	ErrConversationInvalid = errors.New("conversation is invalid")
	// ErrQuota: the monthly conversation allowance is used up and overage is off.
	ErrQuota = errors.New("the monthly conversation allowance is used up")
	// ErrSpendCap: the next overage conversation would pass the spend cap.
	ErrSpendCap = errors.New("the overage spend cap is reached")
	// ErrConversationFull: the conversation holds as many messages as it
	// may (store.NewMessage.MaxMessages); the visitor goes on in a new one.
	ErrConversationFull = errors.New("this conversation has reached its message limit; start a new one")
	// ErrModeChanged: a write that required a handling mode found another one,
	// e.g. an AI reply arriving after an operator took the conversation over.
	ErrModeChanged = errors.New("the conversation's handling mode changed")
	// ErrAIUnavailable: the AI backend failed or refused.
	ErrAIUnavailable = errors.New("the AI agent backend is temporarily unavailable")
	// ErrAITimeout: the AI backend did not answer in time.
	ErrAITimeout = errors.New("the request timed out; retry")
)

// InvalidError is a request that breaks a rule of the API: a missing or
// malformed field, a text that is too long. It becomes a 400.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

// Invalid returns an *InvalidError with the message.
func Invalid(msg string) error { return &InvalidError{Msg: msg} }
