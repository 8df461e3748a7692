// Command parley-load drives a running Parley the way visitors do, from
// many loopback source addresses, and reports requests per second, latency
// percentiles per endpoint, errors by status and the server's peak RSS.
// It only targets loopback addresses, and each run is bounded in requests
// and time. See docs/benchmarks.md for the runs and their numbers.
//
// "parley-load proxy -listen 127.0.0.1:8099 -backends URL,URL,…" runs
// instead the small round-robin load balancer the several-instance
// benchmark puts in front of the instances (loopback only as well), and
// "parley-load null -listen 127.0.0.1:8097" a server that answers the
// widget API with fixed bodies: the load tool's own ceiling.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"parley/internal/loadtest"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "proxy" || os.Args[1] == "null") {
		serveLoopback(os.Args[1], os.Args[2:])
		return
	}
	var cfg loadtest.Config
	flag.StringVar(&cfg.Target, "target", "http://127.0.0.1:8080", "base URL of the server (loopback only)")
	flag.StringVar(&cfg.Key, "key", "", "widget key (required)")
	flag.StringVar(&cfg.Mode, "mode", "visitors", "visitors (init, chats and polls), or one endpoint to hammer: init, chat, poll")
	flag.IntVar(&cfg.Visitors, "visitors", 64, "concurrent visitors")
	flag.IntVar(&cfg.Sources, "sources", 256, "distinct loopback source addresses (127.0.0.2 and up)")
	flag.IntVar(&cfg.Chats, "chats", 3, "messages per visitor in visitors mode")
	flag.IntVar(&cfg.Requests, "requests", 100000, "stop after this many requests")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "stop after this long")
	flag.IntVar(&cfg.LongPolls, "long-polls", 0, "extra visitors that each hold a long poll open for the whole run")
	flag.DurationVar(&cfg.Ramp, "ramp", 0, "the long-poll visitors arrive evenly over this long (0: all at once)")
	flag.StringVar(&cfg.Engine, "engine", "", "how the visitors' requests are made: loop (one epoll loop, like wrk; the default on Linux) or goroutines (one each)")
	pid := flag.Int("server-pid", 0, "the server's process id, to report its peak RSS")
	cpuProfile := flag.String("cpuprofile", "", "write the load tool's own CPU profile to this file: it shares the machine with the server")
	flag.Parse()
	if cfg.Key == "" {
		fmt.Fprintln(os.Stderr, "parley-load: -key is required")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "parley-load: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	stats, err := loadtest.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parley-load:", err)
		os.Exit(1)
	}
	loadtest.Print(os.Stdout, stats.Summaries())
	if *pid > 0 {
		if rss, err := loadtest.PeakRSS(*pid); err == nil {
			fmt.Printf("server peak RSS: %.1f MB\n", float64(rss)/(1<<20))
		} else {
			fmt.Fprintln(os.Stderr, "parley-load: peak RSS:", err)
		}
	}
}

// serveLoopback serves the round-robin balancer ("proxy") or the null
// server ("null") on a loopback address until interrupted.
func serveLoopback(what string, args []string) {
	fs := flag.NewFlagSet(what, flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:8099", "address to listen on (loopback only)")
	backends := fs.String("backends", "", "proxy: comma-separated base URLs of the instances (loopback only)")
	fs.Parse(args)
	if err := loadtest.CheckTarget("http://" + *listen); err != nil {
		fmt.Fprintf(os.Stderr, "parley-load %s: -listen: %v\n", what, err)
		os.Exit(2)
	}
	handler := loadtest.NullServer()
	if what == "proxy" {
		lb, err := loadtest.NewBalancer(strings.Split(*backends, ","))
		if err != nil {
			fmt.Fprintln(os.Stderr, "parley-load proxy:", err)
			os.Exit(2)
		}
		handler = lb
	}
	srv := &http.Server{Addr: *listen, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Printf("parley-load %s on %s\n", what, *listen)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "parley-load %s: %v\n", what, err)
		os.Exit(1)
	}
}
