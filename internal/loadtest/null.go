package loadtest

import (
	"io"
	"net/http"
)

// NullServer answers the widget API's three calls with fixed, valid bodies
// and does nothing else: run against it, the load tool measures its own
// ceiling and net/http's on this machine, the most any server could show
// under the same load (docs/benchmarks.md).
func NullServer() http.Handler {
	mux := http.NewServeMux()
	reply := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			io.WriteString(w, body)
		}
	}
	mux.Handle("POST /api/widget/init", reply(`{"conversation_id":"cv_null","visitor_id":"vs_null","status":"ai","config":{}}`+"\n"))
	mux.Handle("POST /api/widget/chat", reply(`{"response":"ok","user_reply_options":[]}`+"\n"))
	mux.Handle("GET /api/widget/poll", reply(`{"messages":[],"cursor":"c0","status":"ai"}`+"\n"))
	return mux
}
