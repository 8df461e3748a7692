package agent

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"parley/internal/vecmath"
)

// nearest is exact: the same units as a sort of every similarity.
func TestNearestIsExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const n, dims = 5000, 16
	av := &agentVectors{dims: dims, flat: make([]float32, n*dims), has: make([]bool, n)}
	var visible []int32
	for u := range n {
		copy(av.flat[u*dims:], normalized(randomVec(r, dims)))
		av.has[u] = u%5 != 0 // some without a vector
		if u%7 != 0 {        // some not visible
			visible = append(visible, int32(u))
		}
	}
	q := normalized(randomVec(r, dims))
	var all []scored
	for _, u := range visible {
		if av.has[u] {
			all = append(all, scored{u, vecmath.Dot(q, av.flat[int(u)*dims:int(u+1)*dims])})
		}
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(b.sim, a.sim) })
	want := units(all[:20])
	if got := av.nearest(q, visible, 20); !slices.Equal(got, want) {
		t.Fatalf("nearest = %v, want %v", got, want)
	}
}

func randomVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}
