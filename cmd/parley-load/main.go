// Command parley-load drives a running Parley the way visitors do and
// reports, per endpoint, requests a second, latency percentiles and
// statuses. It is plain net/http: a goroutine per visitor over one shared
// Transport whose connections come from many loopback source addresses.
// It only uses loopback addresses, and every run is bounded in requests
// and time. Its method and its ceiling: docs/benchmarks.md.
//
// "parley-load null -listen ADDR" serves fixed answers to the widget API
// instead: against it the tool measures its own ceiling.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	var c config
	fs := flag.NewFlagSet("parley-load", flag.ExitOnError)
	null := len(os.Args) > 1 && os.Args[1] == "null"
	listen := fs.String("listen", "127.0.0.1:8097", "null: the address to listen on (loopback only)")
	fs.StringVar(&c.target, "target", "http://127.0.0.1:8080", "base URL of the server (loopback only)")
	fs.StringVar(&c.key, "key", "", "a widget key (required)")
	fs.StringVar(&c.mode, "mode", "visitors", "visitors (an init, then chats each followed by a poll), or one endpoint to hammer: init, chat, poll")
	fs.IntVar(&c.visitors, "visitors", 64, "concurrent visitors, each waiting for its answer before its next request")
	fs.IntVar(&c.sources, "sources", 256, "loopback source addresses the connections come from (127.0.0.2 and up)")
	fs.IntVar(&c.chats, "chats", 3, "messages per visitor in visitors mode")
	fs.IntVar(&c.requests, "requests", 100000, "stop after this many requests")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "stop after this long")
	fs.IntVar(&c.longPolls, "long-polls", 0, "extra visitors that each hold a long poll (wait=25) for the whole run")
	fs.DurationVar(&c.ramp, "ramp", 0, "the long-poll visitors arrive evenly over this long (0: all at once)")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if null { // until interrupted
		fs.Parse(os.Args[2:])
		srv := &http.Server{Addr: *listen, Handler: nullServer(), ReadHeaderTimeout: 10 * time.Second}
		context.AfterFunc(ctx, func() { srv.Close() })
		if err = checkTarget("http://" + *listen); err == nil {
			fmt.Println("parley-load null on", *listen)
			err = srv.ListenAndServe()
		}
	} else {
		fs.Parse(os.Args[1:])
		var st *stats
		if st, err = run(ctx, c); err == nil {
			st.print(os.Stdout)
		}
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "parley-load:", err)
		os.Exit(1)
	}
}

// checkTarget refuses any address that is not this machine's.
func checkTarget(target string) error {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", target)
	}
	if ip, err := netip.ParseAddr(u.Hostname()); u.Hostname() != "localhost" && (err != nil || !ip.IsLoopback()) {
		return errors.New("the load tool only uses loopback addresses (127.0.0.0/8, ::1, localhost)")
	}
	return nil
}

// nullServer answers the widget API's three calls with fixed, valid
// bodies and does nothing else: against it the tool measures its own
// ceiling and net/http's, the most any server could show.
func nullServer() http.Handler {
	mux := http.NewServeMux()
	for route, body := range map[string]string{
		"POST /api/widget/init": `{"conversation_id":"cv_null","visitor_id":"vs_null","status":"ai","config":{}}`,
		"POST /api/widget/chat": `{"response":"ok","user_reply_options":[]}`,
		"GET /api/widget/poll":  `{"messages":[],"cursor":"c0","status":"ai"}`,
	} {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body+"\n")
		})
	}
	return mux
}
