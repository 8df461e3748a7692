package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"parley/internal/metrics"
)

// servePprof serves Go's profiler on its own loopback listener (config
// allows nothing else), apart from the public handler so no route of the
// service can ever reach it. It stops when ctx ends.
func servePprof(ctx context.Context, addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	context.AfterFunc(ctx, func() { srv.Close() })
	go srv.Serve(ln)
	log.Info("profiler listening", "addr", ln.Addr().String(), "path", "/debug/pprof/")
	return nil
}

// serveMetrics serves the Prometheus series on a listener of their own
// (PARLEY_METRICS_ADDR), for a scraper on another host of a private
// network; the main listener then does not serve /metrics at all. It
// stops when ctx ends.
func serveMetrics(ctx context.Context, addr string, reg *metrics.Registry, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", reg)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	context.AfterFunc(ctx, func() { srv.Close() })
	go srv.Serve(ln)
	log.Info("metrics listening", "addr", ln.Addr().String(), "path", "/metrics")
	return nil
}
