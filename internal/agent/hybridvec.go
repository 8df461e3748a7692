package agent

import (
	"context"
	"math"
	"time"

	"parley/internal/domain"
	"parley/internal/retrieval"
	"parley/internal/store"
)

// unitHashes are the keys of an index's units' vectors: the hash of the
// text each is embedded as (its passage, as the LLM sees it).
func unitHashes(ix *retrieval.Index) (texts, hashes []string) {
	texts = make([]string, ix.Units())
	hashes = make([]string, ix.Units())
	for i := range texts {
		texts[i] = passage(ix.Unit(i)).Text
		hashes[i] = store.TextHash(texts[i])
	}
	return texts, hashes
}

// vectors returns the agent's vectors for ix and model, read from the store
// when there are none in memory for them, or when those in memory were
// incomplete a while ago. Nil when the store fails (the search is then
// lexical). Units without a vector put the agent in the sweep's list.
func (h *Hybrid) vectors(ctx context.Context, a domain.Agent, ix *retrieval.Index, model string) *agentVectors {
	h.mu.Lock()
	av := h.agents[a.ID]
	fresh := av != nil && av.ix == ix && av.model == model &&
		(av.count == len(av.has) || time.Since(av.loaded) < reloadMissing)
	h.mu.Unlock()
	if fresh {
		return av
	}
	stored, err := h.o.Vectors.Vectors(ctx, a.ID, model)
	if err != nil {
		h.log.WarnContext(ctx, "reading the agent's vectors failed", "agent", a.ID, "err", err)
		return nil
	}
	_, hashes := unitHashes(ix)
	av = &agentVectors{ix: ix, model: model, has: make([]bool, len(hashes)), loaded: time.Now()}
	for _, v := range stored {
		av.dims = len(v)
		break
	}
	if av.dims > 0 {
		av.flat = make([]float32, len(hashes)*av.dims)
		for i, hash := range hashes {
			if v, ok := stored[hash]; ok && len(v) == av.dims {
				copy(av.flat[i*av.dims:], normalized(v))
				av.has[i] = true
				av.count++
			}
		}
	}
	av.byteLen = 4*len(av.flat) + len(av.has)
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.agents[a.ID]; old != nil {
		h.bytes -= old.byteLen
	}
	// Past the bound, arbitrary agents make room; they read their vectors
	// again on their next message.
	for id, other := range h.agents {
		if h.bytes+av.byteLen <= h.o.CacheBytes {
			break
		}
		delete(h.agents, id)
		h.bytes -= other.byteLen
	}
	h.agents[a.ID] = av
	h.bytes += av.byteLen
	if av.count < len(av.has) {
		h.pending[a.ID] = a.AccountID
	}
	return av
}

// nearest returns up to n of the visible units with a vector, most similar
// to q (normalised) first. The search is exact: every visible unit is
// compared (docs/benchmarks.md measures it).
func (av *agentVectors) nearest(q []float32, visible []int32, n int) []int32 {
	type scored struct {
		unit int32
		sim  float32
	}
	top := make([]scored, 0, n+1)
	d := av.dims
	for _, u := range visible {
		if !av.has[u] {
			continue
		}
		sim := dot(q, av.flat[int(u)*d:int(u+1)*d])
		if len(top) == n && sim <= top[n-1].sim {
			continue
		}
		// Insertion into the short sorted list.
		i := len(top)
		top = append(top, scored{})
		for i > 0 && top[i-1].sim < sim {
			top[i] = top[i-1]
			i--
		}
		top[i] = scored{u, sim}
		if len(top) > n {
			top = top[:n]
		}
	}
	out := make([]int32, len(top))
	for i, s := range top {
		out[i] = s.unit
	}
	return out
}

// dot is the dot product of two vectors of one length, in four running
// sums: independent additions the CPU can overlap, about twice as fast as
// one sum here.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// normalized returns v scaled to length 1 (a copy); a zero vector stays.
func normalized(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	inv := float32(1 / math.Sqrt(n))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}
