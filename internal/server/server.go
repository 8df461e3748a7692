// Package server wires Parley's HTTP surface: the route table (routes.go),
// and what wraps every request (ServeHTTP): panic recovery, metrics and
// access logs, open CORS and the per-IP rate limit on the widget API, the
// parking of widget requests that wait long (parking.go), and JSON bodies
// for unknown routes and methods.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"parley/internal/assets"
	"parley/internal/clientip"
	"parley/internal/dashboard"
	"parley/internal/httpx"
	"parley/internal/manageapi"
	"parley/internal/metrics"
	"parley/internal/park"
	"parley/internal/ratelimit"
	"parley/internal/store"
	"parley/internal/widgetapi"
	"parley/web"
)

// Deps are what the server is built from; main wires them.
type Deps struct {
	Store    store.Pinger // only the health check reads it
	Widget   *widgetapi.API
	Manage   *manageapi.API
	Limiter  ratelimit.Limiter // nil disables the rate limit
	ClientIP *clientip.Resolver
	Registry *metrics.Registry
	Metrics  *Metrics
	Logger   *slog.Logger
	// Dashboard serves the owners' and operators' pages.
	Dashboard *dashboard.Dashboard
	// DemoKey returns the demo agent's widget key, "" when there is none.
	DemoKey func(ctx context.Context) string
	// MetricsElsewhere: /metrics has a listener of its own
	// (PARLEY_METRICS_ADDR), so this handler does not serve it at all.
	MetricsElsewhere bool
	// Lot parks the widget requests that wait long (parking.go); nil: they
	// wait in their handlers. CrowdedInits is how many inits in progress
	// make a crowd, whose next ones are parked; default DefaultCrowdedInits.
	Lot          *park.Lot
	CrowdedInits int
}

type Server struct {
	Deps
	widget   *widgetapi.API
	manage   *manageapi.API
	mux      *http.ServeMux
	widgetJS *assets.File
	widgetUI *assets.File // at its content-hashed name
	uiLatest *assets.File // the same bytes at web.WidgetUIFallback
	demoCSS  *assets.File
	favicon  *assets.File
	openAPI  *assets.File
	csrf     *http.CrossOriginProtection
	inits    atomic.Int64 // widget inits in progress (parking.go)
	crowdAt  int
}

// New returns the whole of Parley as one http.Handler.
func New(d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.DemoKey == nil {
		d.DemoKey = func(context.Context) string { return "" }
	}
	s := &Server{Deps: d, widget: d.Widget, manage: d.Manage, crowdAt: d.CrowdedInits}
	if s.crowdAt <= 0 {
		s.crowdAt = DefaultCrowdedInits
	}
	s.widgetJS = assets.NewFile("widget.js", web.JSType, web.WidgetJS, web.CacheShort)
	s.widgetJS.AllowAnyOrigin = true
	// The loader imports the UI chunk as a module, and browsers fetch modules
	// with CORS, so both forms must allow any origin.
	s.widgetUI = assets.NewFile(web.WidgetUIName, web.JSType, web.WidgetUI, web.CacheImmutable)
	s.widgetUI.AllowAnyOrigin = true
	s.uiLatest = assets.NewFile(web.WidgetUIFallback, web.JSType, web.WidgetUI, web.CacheShort)
	s.uiLatest.AllowAnyOrigin = true
	s.demoCSS = assets.NewFile("demo.css", "text/css; charset=utf-8", web.DemoCSS, web.CacheShort)
	s.favicon = assets.NewFile("favicon.ico", "image/x-icon", web.Favicon, web.CacheShort)
	s.openAPI = assets.NewFile("openapi.json", "application/json", manageapi.OpenAPI, web.CacheRevalidate)
	s.csrf = http.NewCrossOriginProtection()
	s.mux = s.routes()
	return s
}

const widgetPrefix = "/api/widget/"

// The CORS headers of every widget answer, shared rather than allocated per
// request (net/http copies a response's headers, never changes them).
var (
	allowAnyOrigin   = []string{"*"}
	exposeRetryAfter = []string{"Retry-After"}
)

// ServeHTTP runs every request through the common steps, in this order:
// recover → metrics and log → CORS (widget API) → rate limit (widget API)
// → route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK, s: s, start: start}
	handler, route := s.mux.Handler(r)
	isWidget := strings.HasPrefix(r.URL.Path, widgetPrefix)
	if route == "" {
		route = "unmatched"
		if isWidget && r.Method == http.MethodOptions {
			route = "OPTIONS /api/widget/"
		}
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.Logger.Error("panic serving request", "method", r.Method, "route", route, "panic", v)
			if !rec.wrote {
				httpx.Message(rec, http.StatusInternalServerError, "internal server error")
			}
		}
		if rec.parked {
			return // counted and logged when answered (recorder.Parked)
		}
		s.done(r.Method, route, rec.status, start)
	}()

	rec.method, rec.route = r.Method, route
	if isWidget {
		// CORS is fully open (spec), errors included, so a page on any
		// origin can read every answer. No credentials are used.
		h := rec.Header()
		h["Access-Control-Allow-Origin"] = allowAnyOrigin
		// The widget honours Retry-After on a 429; browsers hide it from
		// cross-origin scripts unless exposed.
		h["Access-Control-Expose-Headers"] = exposeRetryAfter
		if r.Method == http.MethodOptions {
			// Preflights do no work, so they do not count against the limit.
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type")
			h.Set("Access-Control-Max-Age", "86400")
			rec.WriteHeader(http.StatusNoContent)
			return
		}
		if !s.allow(rec, r) {
			return
		}
	}
	if handler == nil || route == "unmatched" {
		s.unmatched(rec, r, handler)
		return
	}
	// The mux has matched the request already; only its ServeHTTP can give
	// the handler a pattern's wildcards (r.PathValue), so only those
	// routes are matched a second time (BenchmarkPollHandler under
	// callgrind: 62.0k → 61.4k instructions a poll).
	if strings.Contains(route, "{") {
		s.mux.ServeHTTP(rec, r)
		return
	}
	if isWidget {
		s.serveWidget(rec, r, route, handler)
		return
	}
	handler.ServeHTTP(rec, r)
}

// done counts and logs an answered request.
func (s *Server) done(method, route string, status int, start time.Time) {
	d := time.Since(start)
	s.Metrics.request(route, status, d)
	// Checked first: building the record's attributes costs allocations on
	// every request even when the level is off (it is, under load).
	if s.Logger.Enabled(context.Background(), slog.LevelInfo) {
		s.Logger.Info("request", "method", method, "route", route, "status", status, "duration_ms", float64(d.Microseconds())/1000)
	}
}

// allow applies the per-IP rate limit; on refusal it has written the 429.
func (s *Server) allow(w http.ResponseWriter, r *http.Request) bool {
	if s.Limiter == nil {
		return true
	}
	d := s.Limiter.Allow(r.Context(), s.ClientIP.ClientIP(r))
	if d.Allowed {
		return true
	}
	s.Metrics.rateLimited()
	secs := int((d.RetryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	// No limit_reached field: that is how clients tell this 429 from the
	// account-blocked one.
	httpx.Message(w, http.StatusTooManyRequests, "too many requests from this address; retry after a few seconds")
	return false
}

// unmatched answers requests no route takes: 405 (with Allow) when the path
// exists for other methods, else 404, always as JSON.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request, h http.Handler) {
	probe := &headerProbe{header: http.Header{}}
	if h != nil {
		h.ServeHTTP(probe, r)
	}
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		httpx.Message(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here")
		return
	}
	httpx.Message(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.Store.Ping(ctx); err != nil {
		s.Logger.Error("health check failed", "err", err)
		httpx.Message(w, http.StatusServiceUnavailable, "database unreachable")
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) demo(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", web.CacheRevalidate)
	if err := web.DemoTemplate.Execute(w, web.DemoData{WidgetKey: s.DemoKey(r.Context())}); err != nil {
		s.Logger.Error("rendering demo page", "err", err)
	}
}

// dashboardCSP allows only the dashboard's own scripts, styles and
// connections (the live preview's widget script is same-origin too), and no
// framing.
const dashboardCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"

// page wraps a dashboard handler: security headers, rejection of
// cross-origin state changes (CSRF) by Go's CrossOriginProtection, and of
// NUL characters in the path, query or form (dashboard.RefuseNUL).
func (s *Server) page(h http.HandlerFunc) http.Handler {
	var inner http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dashboard.BoundBody(w, r) // 16 KiB unless the handler needs more
		h(w, r)
	})
	if s.Dashboard != nil {
		// The NUL check reads ahead (at most 64 KiB) in the body as it
		// came and puts it back; the cap, set after it, counts those bytes
		// too, and a handler that needs more can still lift it.
		inner = s.Dashboard.RefuseNUL(inner)
	}
	protected := s.csrf.Handler(inner)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", dashboardCSP)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Content-Type-Options", "nosniff")
		protected.ServeHTTP(w, r)
	})
}
