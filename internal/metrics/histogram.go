package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
)

// DefBuckets are upper bounds in seconds for HTTP request latency, from
// half a millisecond up to ten seconds.
var DefBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Histogram counts observations into buckets.
type Histogram struct {
	upper []float64 // shared by the family, read-only
	// counts holds per-bucket (not cumulative) counts; the last one is
	// the +Inf bucket. The total is their sum, so _count always equals
	// the +Inf bucket even while a scrape races an Observe.
	counts []atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

// Observe records v, typically a duration in seconds.
func (h *Histogram) Observe(v float64) {
	// Index of the first bound >= v, i.e. the bucket with le >= v;
	// len(upper) (the +Inf bucket) when v exceeds them all or is NaN.
	h.counts[sort.SearchFloat64s(h.upper, v)].Add(1)
	addFloat(&h.sum, v)
}

// HistogramVec is a histogram family partitioned by labels.
type HistogramVec struct {
	meta
	upper []float64
	v     *vec[Histogram]
}

// Histogram registers a histogram family with the given bucket upper
// bounds (nil means DefBuckets). Bounds must increase strictly; a final
// +Inf is implied and may be omitted. It panics on invalid input or a
// name clash, including with the _bucket, _sum and _count series.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if slices.Contains(labels, "le") {
		panic(fmt.Sprintf("metrics: histogram %q may not use label \"le\"", name))
	}
	h := &HistogramVec{meta: newMeta(name, help, "histogram", labels), upper: checkBuckets(name, buckets)}
	h.v = newVec(h.labels, func() *Histogram {
		return &Histogram{upper: h.upper, counts: make([]atomic.Uint64, len(h.upper)+1)}
	})
	r.register(h, name, name+"_bucket", name+"_sum", name+"_count")
	return h
}

func checkBuckets(name string, buckets []float64) []float64 {
	if buckets == nil {
		buckets = DefBuckets
	}
	upper := slices.Clone(buckets)
	if n := len(upper); n > 0 && math.IsInf(upper[n-1], 1) {
		upper = upper[:n-1]
	}
	for i, u := range upper {
		if math.IsNaN(u) || math.IsInf(u, 0) || (i > 0 && u <= upper[i-1]) {
			panic(fmt.Sprintf("metrics: histogram %q: buckets must be finite and strictly increasing: %v", name, buckets))
		}
	}
	return upper
}

// With returns the histogram for the given label values, creating it on
// first use.
func (h *HistogramVec) With(labelValues ...string) *Histogram { return h.v.with(labelValues) }

func (h *HistogramVec) appendText(b []byte) []byte {
	ss := h.v.sorted()
	if len(ss) == 0 {
		return b
	}
	b = h.appendHeader(b)
	bucket, sum, count := h.metricName+"_bucket", h.metricName+"_sum", h.metricName+"_count"
	for _, s := range ss {
		var cum uint64
		for i := range s.m.counts {
			cum += s.m.counts[i].Load()
			le := "+Inf"
			if i < len(h.upper) {
				le = string(appendFloat(nil, h.upper[i]))
			}
			b = appendSeries(b, bucket, h.labels, s.values, "le", le)
			b = strconv.AppendUint(b, cum, 10)
			b = append(b, '\n')
		}
		b = appendSeries(b, sum, h.labels, s.values, "", "")
		b = appendFloat(b, math.Float64frombits(s.m.sum.Load()))
		b = append(b, '\n')
		b = appendSeries(b, count, h.labels, s.values, "", "")
		b = strconv.AppendUint(b, cum, 10)
		b = append(b, '\n')
	}
	return b
}
