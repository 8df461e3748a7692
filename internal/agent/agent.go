// Package agent answers visitors. Responder is the one interface the chat
// service calls; the built-in knowledge-base agent (kb.go) implements it,
// and an LLM-backed one can replace it without touching any caller.
package agent

import (
	"context"

	"parley/internal/domain"
)

// Request is everything a responder may use to answer one visitor message.
type Request struct {
	Agent          domain.Agent
	ConversationID string
	Text           string
	Lang           string // one of i18n.Languages
}

// Reply is the agent's answer. Options become the chat response's
// user_reply_options; nil when there are none. Unanswered is set when the
// agent could not answer (it said so in Text): two in a row ask for a human.
// Sources are the pages and documents the answer comes from (the chat
// response's "sources"); nil when it comes from none (a Q&A entry, small
// talk, "I don't know"). Usage is the LLM tokens the reply cost, stored
// with it; zero for the built-in knowledge-base agent.
type Reply struct {
	Text       string
	Options    []string
	Unanswered bool
	Sources    []domain.SourceRef
	Usage      domain.Tokens
}

// Responder answers a visitor. It must honour ctx's deadline; the chat
// service turns a missed deadline into a 504 and any other error into a 502.
type Responder interface {
	Respond(ctx context.Context, req Request) (Reply, error)
}

// Instant is implemented by responders that answer from memory, with no
// backend that could be slow or unreachable (the knowledge-base agent). For
// them the chat service stores the visitor's message and the reply in one
// write: nothing is gained by storing the message first, since there is no
// 502 or 504 to survive, and a chat then costs one durable write, not two.
type Instant interface {
	Instant(a domain.Agent) bool
}

// IsInstant reports whether r answers agent a instantly (see Instant).
func IsInstant(r Responder, a domain.Agent) bool {
	i, ok := r.(Instant)
	return ok && i.Instant(a)
}

// Streamer is implemented by responders that can hand out a reply's text
// while it is being written (an LLM streaming its tokens). onDelta is
// called with each new piece of the reply's text, in order, on the calling
// goroutine; the pieces are a preview: the returned Reply is the answer,
// and its Text may differ from their concatenation (trimmed, or the raw
// text when the model's structured answer could not be followed as it
// streamed).
type Streamer interface {
	RespondStream(ctx context.Context, req Request, onDelta func(text string)) (Reply, error)
}

// RespondStream asks r for a reply, streaming it through onDelta when r is
// a Streamer; any other responder's reply is handed to onDelta whole, as
// one piece, so callers have one path. A nil onDelta is plain Respond.
func RespondStream(ctx context.Context, r Responder, req Request, onDelta func(text string)) (Reply, error) {
	if onDelta == nil {
		return r.Respond(ctx, req)
	}
	if s, ok := r.(Streamer); ok {
		return s.RespondStream(ctx, req, onDelta)
	}
	reply, err := r.Respond(ctx, req)
	if err == nil && reply.Text != "" {
		onDelta(reply.Text)
	}
	return reply, err
}
