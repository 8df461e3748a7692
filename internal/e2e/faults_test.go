package e2e

import (
	"net/http"
	"sync"
)

// faults sits in front of the Parley handler and makes chosen widget API
// requests fail the way real failures do (a status with Parley's error
// body, or a dropped connection), so the tests can check the widget's
// answer to each. It also counts requests per route.
type faults struct {
	mu   sync.Mutex
	plan map[string][]fault // "POST /api/widget/chat" → the next requests' faults
	down map[string]bool    // routes whose connections are closed unanswered
	seen map[string]int
}

type fault struct {
	status int
	body   string            // a JSON error body
	header map[string]string // such as Retry-After
	// cut sends a 200 with a body cut short, then closes the connection:
	// the answer is lost after it began.
	cut bool
	// streamCut begins a streamed chat (one delta event) and closes the
	// connection before the done event.
	streamCut bool
}

// setDown makes every request to route fail with a closed connection, or
// stops that. (A single dropped request is not enough: Chromium silently
// sends a request again when a reused connection closes unanswered.)
func (f *faults) setDown(route string, down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down == nil {
		f.down = map[string]bool{}
	}
	f.down[route] = down
}

// add queues faults for the next requests to route, one per request.
func (f *faults) add(route string, fs ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.plan == nil {
		f.plan = map[string][]fault{}
	}
	f.plan[route] = append(f.plan[route], fs...)
}

// count reports how many requests reached route, faulted or not.
func (f *faults) count(route string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[route]
}

func (f *faults) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := r.Method + " " + r.URL.Path
		f.mu.Lock()
		if f.seen == nil {
			f.seen = map[string]int{}
		}
		f.seen[route]++
		var ft *fault
		if q := f.plan[route]; len(q) > 0 {
			ft, f.plan[route] = &q[0], q[1:]
		}
		down := f.down[route]
		f.mu.Unlock()
		if down {
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		if ft == nil {
			h.ServeHTTP(w, r)
			return
		}
		if ft.streamCut {
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" +
					"event: delta\ndata: {\"text\":\"Half a\"}\n\n"))
				c.Close()
			}
			return
		}
		if ft.cut {
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n{\"response\":\"We are"))
				c.Close()
			}
			return
		}
		// What Parley's middleware adds to every widget answer; without it
		// the browser would report a CORS failure, not the status.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Retry-After")
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		for k, v := range ft.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(ft.status)
		_, _ = w.Write([]byte(ft.body))
	})
}
