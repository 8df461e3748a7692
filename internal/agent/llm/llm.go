// Package llm answers visitors with a large language model behind an
// OpenAI-compatible Chat Completions API: OpenAI itself, Azure OpenAI (its
// v1 endpoint), Ollama, vLLM, llama.cpp's server, OpenRouter and the like.
// Chat Completions is used rather than the newer Responses API because it is
// the one every compatible server implements.
//
// Responder implements agent.Responder. Each call sends the agent's
// instructions, the knowledge passages retrieved for the visitor's message,
// the language to answer in and as much of the conversation as the history
// budget allows; the model is asked for a JSON object holding the reply and
// up to three quick replies, but plain text is accepted just as well.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
	"parley/internal/outbound"
)

// ErrBackend wraps every failure of the LLM backend: unreachable, an HTTP
// error status, a malformed or empty answer, a refusal. Its messages name at
// most the HTTP status, never the response body or the API key, because the
// chat service logs them. A missed deadline is reported as ctx's error
// instead, so the caller can tell a timeout from a failure.
var ErrBackend = errors.New("llm backend failed")

const (
	// DefaultHistoryBudget is how many characters of earlier turns are sent
	// when Config.HistoryBudget is not set.
	DefaultHistoryBudget = 6000
	// HistoryMessages is how many of the newest messages are read for the
	// earlier turns, of which those that fit the history budget are sent:
	// more than 6,000 characters of real turns hold, and a bound on the
	// read however long the conversation.
	HistoryMessages = 100
	// DefaultMaxRetries is how often a failed call is retried when
	// Config.MaxRetries is not set, as in OpenAI's SDKs.
	DefaultMaxRetries = 2
	// passageCount is how many knowledge passages go with each question:
	// enough to cover a question that spans two topics, few enough to keep
	// the prompt small.
	passageCount = 4
	// fallbackTimeout bounds a call whose ctx has no deadline, so a hung
	// server can never hold a request (and its goroutine) forever.
	fallbackTimeout = 2 * time.Minute
)

// Deps are what the responder reads besides the model. Any may be nil.
type Deps struct {
	// Passages returns up to k knowledge passages relevant to text, best
	// first, with the sources they cite. Nil means the model answers from
	// its instructions alone.
	Passages func(ctx context.Context, a domain.Agent, text, lang string, k int) ([]agent.Passage, error)
	// History returns the conversation's newest limit messages oldest
	// first, the visitor's current message included as the last one. It is
	// asked for HistoryMessages: a conversation may be long, and only its
	// end fits the budget anyway.
	History func(ctx context.Context, conversationID string, limit int) ([]domain.Message, error)
	Logger  *slog.Logger
	// Outbound guards the endpoints agents' owners choose; nil is a guard
	// that refuses private addresses. The instance's own endpoint does not
	// go through it.
	Outbound *outbound.Guard
}

// Responder answers visitors through an OpenAI-compatible API.
type Responder struct {
	def     Config
	deps    Deps
	log     *slog.Logger
	http    *http.Client // for the instance's own endpoint
	guard   *outbound.Guard
	guarded *http.Client // for endpoints agents' owners chose
}

var (
	_ agent.Responder = (*Responder)(nil)
	_ agent.Streamer  = (*Responder)(nil)
)

// New returns a responder whose instance-wide settings are def; an agent's
// own "llm" config overrides them (see AgentConfig).
func New(def Config, deps Deps) *Responder {
	log := deps.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	guard := deps.Outbound
	if guard == nil {
		guard = outbound.New(outbound.Options{})
	}
	return &Responder{
		def:     def,
		deps:    deps,
		log:     log,
		http:    newHTTPClient(),
		guard:   guard,
		guarded: guard.Client(),
	}
}

// Enabled reports whether agent a has an LLM to talk to: a base URL and a
// model, from the instance default or its own config. Agents without one are
// for the built-in knowledge-base agent.
func (r *Responder) Enabled(a domain.Agent) bool {
	cfg, _ := r.effective(a)
	return cfg.BaseURL != "" && cfg.Model != ""
}

// Respond asks the model for a reply to req.Text.
func (r *Responder) Respond(ctx context.Context, req agent.Request) (agent.Reply, error) {
	return r.RespondStream(ctx, req, nil)
}

// RespondStream is Respond with the reply's text handed to onDelta as the
// model writes it (agent.Streamer): the backend is called with stream=true
// and the reply string of the model's JSON followed as it arrives
// (replyStream). A nil onDelta is Respond.
func (r *Responder) RespondStream(ctx context.Context, req agent.Request, onDelta func(string)) (agent.Reply, error) {
	cfg, instructions := r.effective(req.Agent)
	if cfg.BaseURL == "" || cfg.Model == "" {
		return agent.Reply{}, fmt.Errorf("%w: no base URL or model configured", ErrBackend)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, fallbackTimeout)
		defer cancel()
	}

	msgs, passages := r.messages(ctx, req, instructions, cfg.HistoryBudget)
	content, usage, err := r.complete(ctx, req.Agent.ID, cfg, msgs, onDelta)
	if err != nil {
		return agent.Reply{}, err
	}
	// The sources are the passages the model cited by number; a reply
	// that cites none lists none (see docs/agent.md, "Grounded answers").
	reply := ground(parseReply(content), passages, req.Lang)
	if reply.Text == "" {
		r.log.WarnContext(ctx, "LLM returned no reply text", "agent", req.Agent.ID, "model", cfg.Model)
		return agent.Reply{}, fmt.Errorf("%w: empty reply", ErrBackend)
	}
	reply.Usage = usage
	return reply, nil
}

// effective is the agent's config merged over the instance default, with
// the defaults filled in, and the agent's instructions.
func (r *Responder) effective(a domain.Agent) (Config, string) {
	over, instructions := agentOverride(a.Config)
	return merge(r.def, over), instructions
}
