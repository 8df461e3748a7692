package llm

import (
	"net/http"

	"parley/internal/openaicompat"
)

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

// client is the API client for cfg's backend: through the plain HTTP
// client for the instance's own endpoint, through the outbound guard's for
// an endpoint an agent's owner chose. It holds no state of its own, so one
// is made per call; connections are pooled by the HTTP clients.
func (r *Responder) client(cfg Config) *openaicompat.Client {
	hc := r.http
	if cfg.tenantEndpoint {
		hc = r.guarded
	}
	return &openaicompat.Client{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, HTTP: hc}
}
