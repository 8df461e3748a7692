// Package metrics is how Parley declares its Prometheus series. The
// counting and the exposition are the official client's
// (github.com/prometheus/client_golang); this package only gives every
// instance a registry of its own (tests start many servers at once, so
// nothing is registered globally) and keeps the few calls the packages that
// count use to declare a series, so that they all declare them one way.
// The series themselves are listed in docs/operations.md.
package metrics

import (
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// The client's types, under the names the counting packages use.
type (
	Counter      = prometheus.Counter
	CounterVec   = prometheus.CounterVec
	HistogramVec = prometheus.HistogramVec
)

// DefBuckets are upper bounds in seconds for request and AI latency, from
// half a millisecond up to ten seconds: finer at the low end than the
// client's defaults, since a widget call takes about a millisecond.
var DefBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry is one instance's series, the Go runtime's and the process's
// among them. Declaring a name twice panics: a programming error, found
// the first time the process starts.
type Registry struct {
	reg     *prometheus.Registry
	handler http.Handler
}

// NewRegistry returns a registry holding the client's Go runtime and
// process collectors (go_*, process_*: memory, GC, threads, open files),
// which cost some reads of /proc and of runtime/metrics per scrape and
// nothing between scrapes.
func NewRegistry() *Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Registry{reg: reg, handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
}

// Counter declares a counter family. A family without labels has its one
// series from the start, so it is scraped as 0 before its first count; a
// labelled one shows a series once it has counted.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.reg.MustRegister(c)
	if len(labels) == 0 {
		c.WithLabelValues()
	}
	return c
}

// Histogram declares a histogram family with these bucket upper bounds
// (nil: DefBuckets), label-less ones scraped from the start as Counter's.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if buckets == nil {
		buckets = DefBuckets
	}
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	r.reg.MustRegister(h)
	if len(labels) == 0 {
		h.WithLabelValues()
	}
	return h
}

// GaugeFunc declares a label-less gauge whose value is fn(), called on each
// scrape, for numbers that live elsewhere (pool sizes, map lengths) and
// would be stale if copied. fn must be safe for concurrent use.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	r.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

// ServeHTTP serves the series in the text format to GET and HEAD.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	r.handler.ServeHTTP(w, req)
}

// WriteTo writes every series in the text format, as a scrape shows them:
// for tests, which have no HTTP server at hand.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	fams, err := r.reg.Gather()
	var n int64
	for _, f := range fams {
		m, werr := expfmt.MetricFamilyToText(w, f)
		n += int64(m)
		if werr != nil {
			return n, werr
		}
	}
	return n, err
}
