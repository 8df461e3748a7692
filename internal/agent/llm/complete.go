package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"parley/internal/domain"
	"parley/internal/openaicompat"
	"parley/internal/outbound"
)

// maxRetryDelay is the longest wait before a retry, as in OpenAI's SDKs;
// a retry wait is never longer, and never longer than half the time left.
const maxRetryDelay = openaicompat.DefaultMaxDelay

// complete sends msgs to cfg's backend and returns the model's text and the
// tokens the backend counted (zero when it did not say). A
// connection error, 408, 409, 429 or 5xx is retried up to MaxRetries times,
// all within ctx; the outbound guard's refusal of an address is final.
// With onDelta the call streams (whatever cfg.Stream says) and the reply's
// text is handed to it as it arrives (replyStream).
func (r *Responder) complete(ctx context.Context, agentID string, cfg Config, msgs []message, onDelta func(string)) (string, domain.Tokens, error) {
	retry := openaicompat.Retry{Max: cfg.MaxRetries, Final: outbound.IsRefusal}
	if d, ok := retryDelayCap(ctx); ok {
		// A server asking to wait longer than this (Retry-After) gets its
		// error returned at once rather than a retry that would only end
		// in a timeout.
		retry.MaxDelay = d
	}
	req := openaicompat.ChatRequest{Model: cfg.Model, Messages: make([]openaicompat.Message, len(msgs)), Stream: cfg.Stream}
	for i, m := range msgs {
		req.Messages[i] = openaicompat.Message(m)
	}
	if onDelta != nil {
		req.Stream, req.OnDelta = true, (&replyStream{onDelta: (&markerFilter{out: onDelta}).write}).write
	}
	reply, err := r.client(cfg).Chat(ctx, req, retry)
	var refused *outbound.Refusal
	if errors.As(err, &refused) {
		return "", domain.Tokens{}, r.refuse(ctx, agentID, cfg, refused)
	}
	if err != nil {
		return "", domain.Tokens{}, r.fail(ctx, agentID, cfg, err)
	}
	if strings.TrimSpace(reply.Content) == "" && reply.Refusal != "" {
		r.log.WarnContext(ctx, "LLM refused to answer", "agent", agentID, "model", cfg.Model)
		return "", domain.Tokens{}, fmt.Errorf("%w: the model refused", ErrBackend)
	}
	return reply.Content, domain.Tokens{Prompt: reply.Usage.PromptTokens, Completion: reply.Usage.CompletionTokens}, nil
}

// fail logs why a call failed and returns an error fit for the chat
// service: ctx's own error when time ran out, else ErrBackend with at most
// the HTTP status.
func (r *Responder) fail(ctx context.Context, agentID string, cfg Config, cause error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		r.log.WarnContext(ctx, "LLM call cut short", "agent", agentID, "model", cfg.Model, "err", ctxErr)
		return fmt.Errorf("llm: no reply in time: %w", ctxErr)
	}
	// The API's error code ("invalid_api_key", "model_not_found") says what
	// to fix; its message is left out, as it may quote the request.
	status, code := 0, ""
	var apiErr *openaicompat.Error
	if errors.As(cause, &apiErr) {
		status, code = apiErr.StatusCode, redact(apiErr.Code, cfg.APIKey)
	}
	r.log.WarnContext(ctx, "LLM call failed", "agent", agentID, "model", cfg.Model,
		"status", status, "code", code, "err", redact(cause.Error(), cfg.APIKey))
	switch {
	case status >= 400:
		return fmt.Errorf("%w: HTTP %d", ErrBackend, status)
	case apiErr != nil || errors.Is(cause, openaicompat.ErrInvalidResponse):
		return fmt.Errorf("%w: invalid response", ErrBackend)
	default:
		return fmt.Errorf("%w: unreachable", ErrBackend)
	}
}

// refuse logs, for the administrator, that an agent's endpoint led to an
// address the outbound guard refuses, and returns a plain backend failure:
// the visitor sees the usual 502, not where the endpoint pointed. No
// connection was attempted, so the answer takes the same time whatever
// listens at that address.
func (r *Responder) refuse(ctx context.Context, agentID string, cfg Config, why *outbound.Refusal) error {
	host := ""
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		host = u.Host // without any user:password in the URL
	}
	r.log.WarnContext(ctx, "LLM endpoint refused: the agent's base URL leads to a private address (PARLEY_FETCH_ALLOW_PRIVATE)",
		"agent", agentID, "endpoint", host, "address", why.Addr.String(), "class", why.Class.Key())
	return fmt.Errorf("%w: endpoint refused", ErrBackend)
}

// retryDelayCap is the longest retry wait worth making: half the time left
// before ctx's deadline, at most maxRetryDelay.
func retryDelayCap(ctx context.Context) (time.Duration, bool) {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	d := min(time.Until(dl)/2, maxRetryDelay)
	return d, d > 0
}

// redact keeps the API key out of logged errors in case a server echoes it.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}
