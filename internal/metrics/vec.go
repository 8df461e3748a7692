package metrics

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
)

// vec maps label values to one metric each. Lookups of an existing series
// take only the read lock and build their key on the stack, so the hot
// path neither allocates nor serialises on a write lock.
type vec[M any] struct {
	labels []string
	newM   func() *M
	mu     sync.RWMutex
	series map[string]*series[M]
}

type series[M any] struct {
	values []string
	m      *M
}

func newVec[M any](labels []string, newM func() *M) *vec[M] {
	v := &vec[M]{labels: labels, newM: newM, series: make(map[string]*series[M])}
	if len(labels) == 0 {
		// A label-less metric always has its one series, so it is
		// exposed (as zero) before its first update.
		v.with(nil)
	}
	return v
}

func (v *vec[M]) with(values []string) *M {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: got %d label values for labels %q", len(values), v.labels))
	}
	var buf [128]byte
	k := seriesKey(buf[:0], values)
	v.mu.RLock()
	s := v.series[string(k)]
	v.mu.RUnlock()
	if s != nil {
		return s.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.series[string(k)]; s != nil {
		return s.m
	}
	s = &series[M]{values: slices.Clone(values), m: v.newM()}
	v.series[string(k)] = s
	return s.m
}

// sorted returns the series ordered by label values, for stable output.
func (v *vec[M]) sorted() []*series[M] {
	v.mu.RLock()
	out := make([]*series[M], 0, len(v.series))
	for _, s := range v.series {
		out = append(out, s)
	}
	v.mu.RUnlock()
	slices.SortFunc(out, func(a, b *series[M]) int { return slices.Compare(a.values, b.values) })
	return out
}

// seriesKey length-prefixes each value so that no choice of values can
// make two different tuples share a key.
func seriesKey(b []byte, values []string) []byte {
	for _, val := range values {
		b = binary.AppendUvarint(b, uint64(len(val)))
		b = append(b, val...)
	}
	return b
}
