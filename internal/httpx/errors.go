package httpx

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"parley/internal/domain"
)

// The catalogue: every error a handler can meet, mapped to the status and
// text the client sees. Anything not listed is a 500 whose cause is logged
// but never shown.

// ErrorBody is the JSON of every error response.
type ErrorBody struct {
	Error string `json:"error"`
	// Set only for the account-blocked 429, which clients tell apart from
	// the rate-limit 429 by this field's presence.
	LimitReached bool   `json:"limit_reached,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

// Status returns the HTTP status and the body for err.
func Status(err error) (int, ErrorBody) {
	var invalid *domain.InvalidError
	var decode *decodeErr
	var slow *domain.SlowDownError
	var knowledgeLimit *domain.KnowledgeLimitError
	var agentLimit *domain.AgentLimitError
	switch {
	case errors.As(err, &invalid):
		return http.StatusBadRequest, ErrorBody{Error: invalid.Msg}
	case errors.As(err, &decode):
		return http.StatusBadRequest, ErrorBody{Error: decode.msg}
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge, ErrorBody{Error: err.Error()}
	case errors.As(err, &knowledgeLimit):
		return http.StatusRequestEntityTooLarge, ErrorBody{Error: knowledgeLimit.Msg}
	case errors.As(err, &agentLimit):
		return http.StatusForbidden, ErrorBody{Error: agentLimit.Error()}
	case errors.Is(err, domain.ErrKeyInvalid):
		return http.StatusForbidden, ErrorBody{Error: domain.ErrKeyInvalid.Error()}
	case errors.Is(err, domain.ErrIdentityRefused):
		return http.StatusForbidden, ErrorBody{Error: domain.ErrIdentityRefused.Error()}
	case errors.Is(err, domain.ErrOriginRefused):
		return http.StatusForbidden, ErrorBody{Error: domain.ErrOriginRefused.Error()}
	case errors.Is(err, domain.ErrConversationInvalid):
		return http.StatusForbidden, ErrorBody{Error: domain.ErrConversationInvalid.Error()}
	case errors.Is(err, domain.ErrConversationFull):
		// The spec's 403 "the conversation is invalid": it can no longer be used.
		return http.StatusForbidden, ErrorBody{Error: domain.ErrConversationFull.Error()}
	case errors.Is(err, domain.ErrQuota):
		return http.StatusTooManyRequests, ErrorBody{Error: domain.ErrQuota.Error(), LimitReached: true, Reason: "quota"}
	case errors.Is(err, domain.ErrSpendCap):
		return http.StatusTooManyRequests, ErrorBody{Error: domain.ErrSpendCap.Error(), LimitReached: true, Reason: "spend_cap"}
	case errors.As(err, &slow):
		// No limit_reached: waiting clears it (Error sets Retry-After).
		return http.StatusTooManyRequests, ErrorBody{Error: slow.Msg}
	case errors.Is(err, domain.ErrAIUnavailable):
		return http.StatusBadGateway, ErrorBody{Error: domain.ErrAIUnavailable.Error()}
	case errors.Is(err, domain.ErrAITimeout):
		return http.StatusGatewayTimeout, ErrorBody{Error: domain.ErrAITimeout.Error()}
	case errors.Is(err, domain.ErrMessageNotFound):
		return http.StatusNotFound, ErrorBody{Error: domain.ErrMessageNotFound.Error()}
	case errors.Is(err, domain.ErrNotFound):
		return http.StatusNotFound, ErrorBody{Error: "not found"}
	case errors.Is(err, domain.ErrConflict):
		return http.StatusConflict, ErrorBody{Error: domain.ErrConflict.Error()}
	}
	return http.StatusInternalServerError, ErrorBody{Error: "internal server error"}
}

// StatusClientClosed is nginx's 499 "client closed request": the request
// failed because its client went away (a visitor closing the tab while
// the message was being stored). Nobody reads the answer; the status is
// for the access log and the metrics, where a 500 would raise an alarm
// for what is no fault of the server's.
const StatusClientClosed = 499

// Error writes err as a JSON error response. Unexpected errors are logged
// with the request's method and path (never its body).
func Error(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		Message(w, StatusClientClosed, "client closed request")
		return
	}
	status, body := Status(err)
	var slow *domain.SlowDownError
	if errors.As(err, &slow) {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(slow.RetryAfter)))
	}
	if status == http.StatusInternalServerError {
		slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	JSON(w, status, body)
}

// RetryAfterSeconds is d for a Retry-After header: whole seconds, rounded
// up, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// Message writes a JSON error with a status and a text of the caller's.
func Message(w http.ResponseWriter, status int, msg string) {
	JSON(w, status, ErrorBody{Error: msg})
}
