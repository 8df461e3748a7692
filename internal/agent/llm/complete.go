package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"parley/internal/outbound"
)

// maxRetryDelay is the SDK's own cap on its exponential backoff; a retry
// wait is never longer, and never longer than half the time left.
const maxRetryDelay = 8 * time.Second

// complete sends msgs to cfg's backend and returns the model's text. The
// SDK retries connection errors, 408, 409, 429 and 5xx up to MaxRetries
// times, all within ctx.
func (r *Responder) complete(ctx context.Context, agentID string, cfg Config, msgs []message) (string, error) {
	c := r.client(cfg)
	params := openai.ChatCompletionNewParams{Model: cfg.Model, Messages: toParams(msgs)}

	// resp is the last HTTP response, kept for its status code: the SDK
	// only returns an *openai.Error when the error body is well-formed.
	var resp *http.Response
	opts := []option.RequestOption{option.WithMaxRetries(cfg.MaxRetries), option.WithResponseInto(&resp)}
	if d, ok := retryDelayCap(ctx); ok {
		// A server asking to wait longer than this (Retry-After) gets its
		// error returned at once rather than a retry that would only end
		// in a timeout.
		opts = append(opts, option.WithMaxRetryDelay(d))
	}

	callCtx := ctx
	var refused *outbound.Refusal
	if cfg.tenantEndpoint {
		// The guard's refusal of the dialled address is final, but the SDK
		// would retry it as a connection error, with backoff. Ending the
		// call's context stops it after the first dial.
		var cancel context.CancelFunc
		callCtx, cancel = context.WithCancel(ctx)
		defer cancel()
		opts = append(opts, option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			res, err := next(req)
			if errors.As(err, &refused) {
				cancel()
			}
			return res, err
		}))
	}

	var content, refusal string
	var err error
	if cfg.Stream {
		content, refusal, err = streamed(callCtx, &c.chat, params, opts)
	} else {
		content, refusal, err = unary(callCtx, &c.chat, params, opts)
	}
	if refused != nil {
		return "", r.refuse(ctx, agentID, cfg, refused)
	}
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return "", r.fail(ctx, agentID, cfg, status, err)
	}
	if strings.TrimSpace(content) == "" && refusal != "" {
		r.log.WarnContext(ctx, "LLM refused to answer", "agent", agentID, "model", cfg.Model)
		return "", fmt.Errorf("%w: the model refused", ErrBackend)
	}
	return content, nil
}

func unary(ctx context.Context, chat *openai.ChatCompletionService, params openai.ChatCompletionNewParams, opts []option.RequestOption) (content, refusal string, err error) {
	res, err := chat.New(ctx, params, opts...)
	if err != nil {
		return "", "", err
	}
	if len(res.Choices) == 0 {
		return "", "", nil // reported as an empty reply
	}
	m := res.Choices[0].Message
	return m.Content, m.Refusal, nil
}

// streamed makes the call with stream=true and concatenates the deltas of
// the first choice.
func streamed(ctx context.Context, chat *openai.ChatCompletionService, params openai.ChatCompletionNewParams, opts []option.RequestOption) (content, refusal string, err error) {
	stream := chat.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var text, refused strings.Builder
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			if ch.Index == 0 {
				text.WriteString(ch.Delta.Content)
				refused.WriteString(ch.Delta.Refusal)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return "", "", err
	}
	return text.String(), refused.String(), nil
}

// fail logs why a call failed and returns an error fit for the chat
// service: ctx's own error when time ran out, else ErrBackend with at most
// the HTTP status. The SDK's error is not wrapped because some of its
// errors quote the response body.
func (r *Responder) fail(ctx context.Context, agentID string, cfg Config, status int, cause error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		r.log.WarnContext(ctx, "LLM call cut short", "agent", agentID, "model", cfg.Model, "err", ctxErr)
		return fmt.Errorf("llm: no reply in time: %w", ctxErr)
	}
	// The API's error code ("invalid_api_key", "model_not_found") says what
	// to fix; its message is left out, as it may quote the request.
	code := ""
	var apiErr *openai.Error
	if errors.As(cause, &apiErr) {
		code = redact(apiErr.Code, cfg.APIKey)
		if apiErr.StatusCode != 0 {
			status = apiErr.StatusCode
		}
	}
	r.log.WarnContext(ctx, "LLM call failed", "agent", agentID, "model", cfg.Model,
		"status", status, "code", code, "err", redact(cause.Error(), cfg.APIKey))
	switch {
	case status >= 400:
		return fmt.Errorf("%w: HTTP %d", ErrBackend, status)
	case status == 0:
		return fmt.Errorf("%w: unreachable", ErrBackend)
	default:
		return fmt.Errorf("%w: invalid response", ErrBackend)
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

func toParams(msgs []message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case roleSystem:
			out = append(out, openai.SystemMessage(m.Content))
		case roleAssistant:
			out = append(out, openai.AssistantMessage(m.Content))
		default:
			out = append(out, openai.UserMessage(m.Content))
		}
	}
	return out
}
