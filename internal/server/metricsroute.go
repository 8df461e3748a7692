package server

import (
	"net"
	"net/http"
	"net/netip"

	"parley/internal/httpx"
)

// serveMetrics answers /metrics on the main listener: only to a client on
// this machine, and not at all when the metrics have a listener of their
// own (PARLEY_METRICS_ADDR). Everyone else gets the 404 of an unknown path,
// for every method, so the answer does not even tell that the route
// exists. The series show traffic, errors and the limiter's state: nothing
// for the public.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.MetricsElsewhere || !localRequest(r) {
		httpx.Message(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		httpx.Message(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here")
		return
	}
	s.Registry.ServeHTTP(w, r)
}

// localRequest reports whether r comes from this machine: its TCP peer is
// a loopback address and it carries no proxy header. A reverse proxy on
// the same host connects from 127.0.0.1 for every visitor; the headers it
// adds (X-Forwarded-For, Forwarded, X-Real-IP) mark a request it relayed,
// which is not local, whatever the header says and whether or not the
// proxy is trusted. A client that sends such a header itself only locks
// itself out.
func localRequest(r *http.Request) bool {
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		if _, ok := r.Header[h]; ok {
			return false
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
