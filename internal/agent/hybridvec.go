package agent

import (
	"context"
	"math"
	"time"
	"weak"

	"parley/internal/domain"
	"parley/internal/retrieval"
	"parley/internal/store"
	"parley/internal/vecmath"
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
	fresh := av != nil && av.ix.Value() == ix && av.model == model &&
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
	av = &agentVectors{ix: weak.Make(ix), model: model, has: make([]bool, len(hashes)), loaded: time.Now()}
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
// compared, at about 40 ns per 768-dimension vector with AVX2
// (docs/benchmarks.md, "Hybrid retrieval").
func (av *agentVectors) nearest(q []float32, visible []int32, n int) []int32 {
	return units(av.top(q, visible, n, nil))
}

// scored is a unit and its similarity to the query.
type scored struct {
	unit int32
	sim  float32
}

// top adds the visible units' similarities to top, keeping the best n.
func (av *agentVectors) top(q []float32, visible []int32, n int, top []scored) []scored {
	d := av.dims
	for _, u := range visible {
		if !av.has[u] {
			continue
		}
		sim := vecmath.Dot(q, av.flat[int(u)*d:int(u+1)*d])
		if len(top) == n && sim <= top[n-1].sim {
			continue
		}
		top = insertTop(top, scored{u, sim}, n)
	}
	return top
}

// insertTop puts s into the list of the best n, best first.
func insertTop(top []scored, s scored, n int) []scored {
	if len(top) == n && s.sim <= top[n-1].sim {
		return top
	}
	i := len(top)
	top = append(top, scored{})
	for i > 0 && top[i-1].sim < s.sim {
		top[i] = top[i-1]
		i--
	}
	top[i] = s
	if len(top) > n {
		top = top[:n]
	}
	return top
}

func units(top []scored) []int32 {
	out := make([]int32, len(top))
	for i, s := range top {
		out[i] = s.unit
	}
	return out
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
