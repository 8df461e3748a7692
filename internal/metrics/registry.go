// Package metrics is a small registry of counters, gauges and histograms
// exposed in the Prometheus text format (version 0.0.4). It exists so the
// service can be scraped without pulling in the Prometheus client library.
package metrics

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Registry holds metric families. Registration takes a lock; updating a
// metric never touches the registry. The zero value is not usable; call
// NewRegistry.
type Registry struct {
	mu       sync.Mutex
	taken    map[string]bool // every series name in use, suffixes included
	families []family
}

// family is one metric name with its HELP and TYPE lines.
type family interface {
	name() string
	// appendText appends the family's exposition, or nothing when it has
	// no series yet (an empty family would be noise to scrapers).
	appendText(b []byte) []byte
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{taken: make(map[string]bool)}
}

// register claims names for f. A clash is a programming error, found the
// first time the process starts, so it panics instead of returning one.
func (r *Registry) register(f family, names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if r.taken[n] {
			panic(fmt.Sprintf("metrics: %q registered twice", n))
		}
	}
	for _, n := range names {
		r.taken[n] = true
	}
	r.families = append(r.families, f)
}

// WriteTo writes every family, sorted by name, in the text format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	fams := slices.Clone(r.families)
	r.mu.Unlock()
	// Series are read outside the registry lock: gauge funcs may take
	// locks of their own and must not stall registration.
	slices.SortFunc(fams, func(a, b family) int { return strings.Compare(a.name(), b.name()) })
	var b []byte
	for _, f := range fams {
		b = f.appendText(b)
	}
	n, err := w.Write(b)
	return int64(n), err
}

// ServeHTTP serves the exposition for GET and HEAD.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	if req.Method == http.MethodHead {
		return
	}
	_, _ = r.WriteTo(w) // a failed write means the scraper went away
}
