package agent

import (
	"context"
	"log/slog"
	"sync"
	"time"
	"weak"

	"parley/internal/domain"
	"parley/internal/embed"
	"parley/internal/retrieval"
	"parley/internal/store"
)

// Hybrid retrieval for LLM agents (docs/agent.md, "Hybrid retrieval"):
// BM25 from the knowledge-base agent's index and exact cosine similarity
// of embeddings, fused by reciprocal rank. Vectors are embedded in the
// background (EmbedAgent, run by the job queue) and kept in memory per
// agent, beside the index they belong to. Without an embeddings backend
// for the agent, or when its vectors or the backend are missing, Passages
// is the knowledge-base agent's lexical Passages.

// Embedder is what hybrid retrieval asks of the embeddings backend
// (*embed.Embedder).
type Embedder interface {
	For(a domain.Agent) embed.Backend
	Embed(ctx context.Context, b embed.Backend, texts []string) ([][]float32, error)
}

// HybridOptions configure NewHybrid. KB, Embedder and Vectors are required.
type HybridOptions struct {
	KB       *KB
	Embedder Embedder
	Vectors  store.Vectors
	// Enqueue queues an embedding of the agent's passages (a job of
	// jobs.Queue.EnqueueEmbed); nil embeds nothing in the background.
	Enqueue func(ctx context.Context, accountID, agentID string) error
	// OnFallback counts a search that was lexical only although the agent
	// has an embeddings backend: reason "backend" (the query could not be
	// embedded) or "missing" (no vectors yet).
	OnFallback func(reason string)
	Logger     *slog.Logger
	// QueryTimeout bounds embedding the visitor's message; 0 means
	// DefaultQueryTimeout. A slow backend costs the reply at most this.
	QueryTimeout time.Duration
	// CacheBytes bounds the vectors kept in memory; 0 means
	// DefaultVectorCacheBytes.
	CacheBytes int
}

const (
	// DefaultQueryTimeout: a local or hosted embedding of one sentence
	// takes tens of milliseconds; a backend slower than this is treated
	// as down for the message.
	DefaultQueryTimeout = 2 * time.Second
	// DefaultVectorCacheBytes holds about 80,000 passages of 768
	// dimensions (the knowledge index's default bound is the same size).
	DefaultVectorCacheBytes = 256 << 20
	// reloadMissing: vectors of an agent found incomplete are read again
	// after this, since another instance's job may have stored them.
	reloadMissing = 30 * time.Second
	// embedChunk is how many passages are embedded and stored at a time,
	// so that a job cut short keeps what it did.
	embedChunk = 256
	// rrfK is reciprocal-rank fusion's constant, the usual 60: ranks
	// beyond the first few weigh little, and one list's top does not
	// drown the other's.
	rrfK = 60
)

// Hybrid gives LLM agents fused lexical and vector retrieval.
type Hybrid struct {
	o   HybridOptions
	log *slog.Logger

	mu      sync.Mutex
	agents  map[string]*agentVectors
	bytes   int
	pending map[string]string // agent id → account id: vectors found missing, to enqueue (Sweep)
	seen    map[string]string // agent id → account id: agents with embeddings answered here (Changed)
}

// agentVectors are one agent's vectors for one index, by unit, normalised
// so cosine similarity is a dot product; units without a vector have
// has[i] false.
type agentVectors struct {
	// ix is weak: the vectors must not keep alive an index the
	// knowledge-base agent's cache has let go (its memory bound).
	ix      weak.Pointer[retrieval.Index]
	model   string
	dims    int
	flat    []float32 // unit i is flat[i*dims : (i+1)*dims]
	has     []bool
	count   int // units with a vector
	loaded  time.Time
	byteLen int
}

// NewHybrid returns hybrid retrieval over o.KB's indexes.
func NewHybrid(o HybridOptions) *Hybrid {
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = DefaultQueryTimeout
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultVectorCacheBytes
	}
	if o.OnFallback == nil {
		o.OnFallback = func(string) {}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hybrid{o: o, log: log, agents: map[string]*agentVectors{}, pending: map[string]string{}, seen: map[string]string{}}
}

// Passages returns up to k passages for text: BM25's and the nearest by
// vector, fused, best first; the LLM responder's Deps.Passages.
func (h *Hybrid) Passages(ctx context.Context, a domain.Agent, text, lang string, k int) ([]Passage, error) {
	ix, err := h.o.KB.index(ctx, a)
	if err != nil {
		return nil, err
	}
	lang = messageLang(text, lang)
	depth := max(4*k, 20)
	var lexical []retrieval.Hit
	for _, hit := range ix.Search(text, lang, depth) {
		if hit.Confidence >= nearMissMin {
			lexical = append(lexical, hit)
		}
	}
	b := h.o.Embedder.For(a)
	if !b.Enabled() || ix.Units() == 0 {
		return passages(lexical, k), nil // no embeddings, or nothing to embed
	}
	h.mu.Lock()
	h.seen[a.ID] = a.AccountID
	h.mu.Unlock()
	av := h.vectors(ctx, a, ix, b.Model)
	if av == nil || av.count == 0 {
		h.o.OnFallback("missing")
		return passages(lexical, k), nil
	}
	qctx, cancel := context.WithTimeout(ctx, h.o.QueryTimeout)
	q, err := h.o.Embedder.Embed(qctx, b, []string{text})
	cancel()
	if err != nil || len(q) != 1 || len(q[0]) != av.dims {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		h.o.OnFallback("backend")
		h.log.WarnContext(ctx, "embedding the message failed: lexical retrieval only", "agent", a.ID, "err", err)
		return passages(lexical, k), nil
	}
	near := av.nearest(normalized(q[0]), ix.Visible(lang), depth)
	return passages(fuse(lexical, near, ix, k), k), nil
}

func passages(hits []retrieval.Hit, k int) []Passage {
	var out []Passage
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, passage(h))
	}
	return out
}

// fuse ranks units by reciprocal-rank fusion of the lexical hits and the
// units nearest by vector: Σ 1/(rrfK + rank) over the lists a unit is in.
// Ties keep the lexical order, then the vector order.
func fuse(lexical []retrieval.Hit, near []int32, ix *retrieval.Index, k int) []retrieval.Hit {
	type fused struct {
		hit   retrieval.Hit
		score float64
		order int
	}
	byUnit := map[int]*fused{}
	var all []*fused
	add := func(h retrieval.Hit, rank int) {
		f := byUnit[h.Unit]
		if f == nil {
			f = &fused{hit: h, order: len(all)}
			byUnit[h.Unit] = f
			all = append(all, f)
		}
		f.score += 1 / float64(rrfK+rank+1)
	}
	for i, h := range lexical {
		add(h, i)
	}
	for i, u := range near {
		add(ix.Unit(int(u)), i)
	}
	// A partial selection sort: k is a handful.
	out := make([]retrieval.Hit, 0, min(k, len(all)))
	for len(out) < k && len(all) > 0 {
		best := 0
		for i, f := range all {
			if f.score > all[best].score || (f.score == all[best].score && f.order < all[best].order) {
				best = i
			}
		}
		out = append(out, all[best].hit)
		all = append(all[:best], all[best+1:]...)
	}
	return out
}
