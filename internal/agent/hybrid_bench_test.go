package agent

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/embed/embedtest"
	"parley/internal/retrieval/retrievaltest"
	"parley/internal/store"
)

// hybridBench is an agent of 10,000 entries, every one visible to every
// search (no language: a search sees all of them, over 10,000 units with
// the documents' sections), with a random 768-dimension vector per unit,
// in the SQLite store.
func hybridBench(b *testing.B) (*Hybrid, domain.Agent, *agentVectors, []retrievaltest.Query) {
	b.Helper()
	entries := retrievaltest.Entries(10_000, 1)
	for i := range entries {
		entries[i].Lang = ""
	}
	st := newGatedStore(b)
	a := seedAgent(b, st)
	kb := NewKB(StaticKnowledge(entries), KBOptions{})
	b.Cleanup(kb.Stop)
	fake := embedtest.New(b, 768)
	h := NewHybrid(HybridOptions{KB: kb, Embedder: embed.New(embed.Config{BaseURL: fake.BaseURL(), Model: "m"}, nil), Vectors: st})
	ctx := context.Background()
	ix, err := kb.index(ctx, a)
	if err != nil {
		b.Fatal(err)
	}
	_, hashes := unitHashes(ix)
	r := rand.New(rand.NewPCG(1, 2))
	for start := 0; start < len(hashes); start += 1000 {
		var vs []store.Vector
		for _, hash := range hashes[start:min(start+1000, len(hashes))] {
			v := make([]float32, 768)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			vs = append(vs, store.Vector{Hash: hash, Vec: v})
		}
		if err := st.PutVectors(ctx, a.ID, "m", vs); err != nil {
			b.Fatal(err)
		}
	}
	av := h.vectors(ctx, a, ix, "m")
	if av == nil || av.count != ix.Units() || ix.Units() < 10_000 {
		b.Fatalf("vectors for %d of %d units", av.count, ix.Units())
	}
	return h, a, av, retrievaltest.Queries(entries, 512, 1)
}

// reportLatency reports the median and 99th percentile of the operations'
// times.
func reportLatency(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[min(len(took)*99/100, len(took)-1)].Microseconds()), "p99-µs")
}

// BenchmarkHybridPassages10k768 is a whole hybrid retrieval as an LLM
// agent's message makes it: BM25 over the index, the message embedded by
// the fake backend over loopback HTTP, exact cosine over every unit,
// reciprocal-rank fusion.
func BenchmarkHybridPassages10k768(b *testing.B) {
	h, a, _, queries := hybridBench(b)
	ctx := context.Background()
	took := make([]time.Duration, 0, 4096)
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		start := time.Now()
		ps, err := h.Passages(ctx, a, q.Text, q.Lang, 4)
		took = append(took, time.Since(start))
		if err != nil || len(ps) == 0 {
			b.Fatalf("Passages(%q) = %d, %v", q.Text, len(ps), err)
		}
		i++
	}
	reportLatency(b, took)
}

// BenchmarkNearest10k768 is the vector side alone: exact cosine similarity
// of one query against 10,000+ vectors of 768 dimensions, top 20.
func BenchmarkNearest10k768(b *testing.B) {
	_, _, av, _ := hybridBench(b)
	visible := make([]int32, len(av.has))
	for i := range visible {
		visible[i] = int32(i)
	}
	q := normalized(embedtest.Vector("m", "how much is shipping", 768))
	took := make([]time.Duration, 0, 4096)
	for b.Loop() {
		start := time.Now()
		if len(av.nearest(q, visible, 20)) != 20 {
			b.Fatal("fewer than 20 nearest")
		}
		took = append(took, time.Since(start))
	}
	reportLatency(b, took)
}
