package server

import (
	"net/http"
	"time"
)

// recorder remembers the status a handler wrote, for metrics and logs.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool

	// For a request answered after its handler returned (Parked).
	parked        bool
	s             *Server
	method, route string
	start         time.Time
}

// Parked implements park.Tracker: the handler took the connection over
// (a parked long poll), so the request is counted and logged when its
// answer is written rather than when ServeHTTP returns.
func (r *recorder) Parked() func(status int) {
	r.parked = true
	s, method, route, start := r.s, r.method, r.route, r.start
	return func(status int) { s.done(method, route, status, start) }
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flush,
// deadlines) through the recorder.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// headerProbe captures what ServeMux's built-in 404/405 handler would
// write, so that ServeHTTP can answer the same status as JSON.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }
