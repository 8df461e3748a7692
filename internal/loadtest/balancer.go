package loadtest

import (
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// NewBalancer returns a round-robin reverse proxy over backends, the small
// load balancer the three-instance benchmark runs behind. It adds
// X-Forwarded-For (so instances that trust the proxy limit visitors, not
// the proxy) and keeps plenty of idle connections per backend: a proxy
// that dials per request would measure itself, not Parley. Like the load
// tool, it only forwards to loopback addresses.
func NewBalancer(backends []string) (http.Handler, error) {
	if len(backends) == 0 {
		return nil, errors.New("no backends")
	}
	targets := make([]*url.URL, len(backends))
	for i, b := range backends {
		if err := CheckTarget(b); err != nil {
			return nil, err
		}
		u, err := url.Parse(b)
		if err != nil {
			return nil, err
		}
		targets[i] = u
	}
	var next atomic.Uint64
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = 0
	transport.MaxIdleConnsPerHost = 1024
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[(next.Add(1)-1)%uint64(len(targets))])
			r.SetXForwarded()
		},
		Transport: transport,
		// Long polls must not be buffered or cut: flush as written.
		FlushInterval: -1,
	}, nil
}
