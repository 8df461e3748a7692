package metrics

import (
	"math"
	"sync/atomic"
)

// Gauge is a value that can go up and down.
type Gauge struct{ bits atomic.Uint64 }

// Set replaces the value.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Add adds d, which may be negative.
func (g *Gauge) Add(d float64) { addFloat(&g.bits, d) }

// Value returns the current value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// GaugeVec is a gauge family partitioned by labels.
type GaugeVec struct {
	meta
	v *vec[Gauge]
}

// Gauge registers a gauge family. It panics on an invalid or duplicate
// name or labels.
func (r *Registry) Gauge(name, help string, labels ...string) *GaugeVec {
	g := &GaugeVec{meta: newMeta(name, help, "gauge", labels)}
	g.v = newVec(g.labels, func() *Gauge { return new(Gauge) })
	r.register(g, name)
	return g
}

// With returns the gauge for the given label values, creating it on first
// use.
func (g *GaugeVec) With(labelValues ...string) *Gauge { return g.v.with(labelValues) }

func (g *GaugeVec) appendText(b []byte) []byte {
	ss := g.v.sorted()
	if len(ss) == 0 {
		return b
	}
	b = g.appendHeader(b)
	for _, s := range ss {
		b = appendSeries(b, g.metricName, g.labels, s.values, "", "")
		b = appendFloat(b, s.m.Value())
		b = append(b, '\n')
	}
	return b
}

// gaugeFunc reads its value at scrape time, for numbers that already
// live elsewhere (pool sizes, map lengths) and would be stale if copied.
type gaugeFunc struct {
	meta
	fn func() float64
}

// GaugeFunc registers a label-less gauge whose value is fn(), called on
// every scrape without any registry lock held. fn must be safe for
// concurrent use.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	r.register(&gaugeFunc{meta: newMeta(name, help, "gauge", nil), fn: fn}, name)
}

func (g *gaugeFunc) appendText(b []byte) []byte {
	b = g.appendHeader(b)
	b = append(b, g.metricName...)
	b = append(b, ' ')
	b = appendFloat(b, g.fn())
	return append(b, '\n')
}

// addFloat adds d to a float64 stored as bits, retrying on a race.
func addFloat(bits *atomic.Uint64, d float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}
