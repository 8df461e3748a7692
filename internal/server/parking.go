package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"parley/internal/httpx"
)

// Parking: the widget requests that will wait a long time give their
// connection back while they wait (package park), so that what a waiting
// request holds is a small goroutine and its wait, not net/http's buffers
// and goroutines for the connection (about 25 KB each). That is what keeps
// 10,000 held long polls, arriving at once, under 300 MB
// (docs/benchmarks.md, "Optimisations that earn their place"). It is
// decided here, for the whole request: the widget API and the chat
// service answer as they would in a handler.
//
// Parked are a long poll (a poll with a wait), and an init that arrives
// while a crowd of them is in progress: each then waits its turn for the
// SQLite writer, and a flood of arrivals would otherwise hold a server
// goroutine and its buffers for each.

const (
	routeInit = "POST /api/widget/init"
	routePoll = "GET /api/widget/poll"
)

// DefaultCrowdedInits is how many inits in progress at once make a crowd:
// two full batches of the SQLite writer (256 writes each), far more than
// a busy site's steady load, reached when visitors arrive all at once.
const DefaultCrowdedInits = 512

// serveWidget runs a widget route's handler, parking the request when it
// will wait (see above) and a Lot is there to park it on.
func (s *Server) serveWidget(w *recorder, r *http.Request, route string, h http.Handler) {
	switch route {
	case routePoll:
		if s.Lot != nil && longPoll(r) && s.park(w, r, h, nil) {
			return
		}
	case routeInit:
		n := s.inits.Add(1)
		if s.Lot != nil && n > int64(s.crowdAt) {
			// The body is read now: the connection is the parked
			// answer's from here on. A body too large for the handler
			// is left to it, in its handler.
			body, err := io.ReadAll(io.LimitReader(r.Body, httpx.MaxBody+1))
			if err == nil && len(body) <= httpx.MaxBody &&
				s.park(w, r, h, func() { s.inits.Add(-1) }, body...) {
				return
			}
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		}
		defer s.inits.Add(-1)
	}
	h.ServeHTTP(w, r)
}

// longPoll reports whether r asks to wait for news (a wait other than 0).
// Short polls, the frequent kind, are told apart without parsing the
// query.
func longPoll(r *http.Request) bool {
	if !strings.Contains(r.URL.RawQuery, "wait=") {
		return false
	}
	wait := r.URL.Query().Get("wait")
	return wait != "" && wait != "0"
}

// park answers r with h from a parked connection, then calls done (if
// set); false if the request cannot be parked (HTTP/2, TLS), having done
// nothing. The parked handler's request reads body and is never
// cancelled: the client's leaving is no longer seen (a wait ends at its
// deadline), and a parked init is carried out even if the visitor left
// meanwhile, as a queued write is anyway. It keeps neither r's body nor,
// through it, the connection's read buffer.
func (s *Server) park(w *recorder, r *http.Request, h http.Handler, done func(), body ...byte) bool {
	parked := r.WithContext(context.WithoutCancel(r.Context()))
	parked.Body, parked.GetBody = http.NoBody, nil
	if len(body) > 0 {
		parked.Body = io.NopCloser(bytes.NewReader(body))
	}
	return s.Lot.Park(w, r, func(pw http.ResponseWriter) {
		if done != nil {
			defer done()
		}
		h.ServeHTTP(pw, parked)
	})
}
