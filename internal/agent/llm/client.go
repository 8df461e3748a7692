package llm

import (
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// maxClients bounds the client cache. Every distinct (base URL, key) pair
// an agent owner saves adds an entry; past this many the cache starts over
// rather than grow without end.
const maxClients = 256

type clientKey struct {
	baseURL, apiKey string
	guarded         bool // through the outbound guard: an owner's endpoint
}

// client is the SDK's Chat Completions service for one backend.
type client struct {
	chat openai.ChatCompletionService
}

// newHTTPClient is the transport the instance's own endpoint uses (it may
// use the environment's proxy, as the administrator set it up); endpoints
// agents' owners choose use the outbound guard's instead. Neither has a
// timeout of its own: each call's ctx bounds it, retries included.
func newHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return &http.Client{Transport: t.Clone()}
	}
	return &http.Client{Transport: http.DefaultTransport}
}

// client returns the cached SDK client for cfg's backend, creating it on
// first use.
func (r *Responder) client(cfg Config) *client {
	key := clientKey{cfg.BaseURL, cfg.APIKey, cfg.tenantEndpoint}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[key]; ok {
		return c
	}
	if len(r.clients) >= maxClients {
		clear(r.clients)
	}
	hc := r.http
	if cfg.tenantEndpoint {
		hc = r.guarded
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// The service is built directly instead of through openai.NewClient,
	// which also reads OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and
	// friends from the environment: an ambient OpenAI key must never be
	// sent to an agent's self-hosted or third-party server.
	c := &client{chat: openai.NewChatCompletionService(opts...)}
	r.clients[key] = c
	return c
}
