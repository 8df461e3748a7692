package agent

import (
	"context"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/retrieval"
	"parley/internal/store"
)

// maxEmbedRounds bounds how often one job embeds again because the agent
// changed while it ran; a later change is left to the next job.
const maxEmbedRounds = 3

// EmbedAgent embeds the agent's passages that have no vector of its
// embeddings model yet and deletes the vectors of text that went or of
// another model: the work of one embedding job. When the agent changed
// while it ran (the queue keeps one job per agent, running included, so
// no other job was queued for the change), it looks again. An error leaves
// what was stored; the job retries.
func (h *Hybrid) EmbedAgent(ctx context.Context, accountID, agentID string) error {
	a, err := h.o.KB.src.Agent(ctx, accountID, agentID)
	for round := 0; err == nil && round < maxEmbedRounds; round++ {
		if err = h.embedOnce(ctx, a); err != nil {
			break
		}
		var now domain.Agent
		if now, err = h.o.KB.src.Agent(ctx, accountID, agentID); err == nil && !now.UpdatedAt.After(a.UpdatedAt) {
			return nil
		}
		a = now
	}
	if err != nil {
		return fmt.Errorf("embed agent %s: %w", agentID, err)
	}
	return nil
}

func (h *Hybrid) embedOnce(ctx context.Context, a domain.Agent) error {
	agentID := a.ID
	b := h.o.Embedder.For(a)
	if !b.Enabled() {
		return nil
	}
	// The current knowledge, indexed as the knowledge-base agent will
	// index it (the cached index may be a version behind).
	entries, err := h.o.KB.src.Knowledge(ctx, agentID)
	if err != nil {
		return err
	}
	texts, hashes := unitHashes(retrieval.Build(entries))
	have, err := h.o.Vectors.Vectors(ctx, agentID, b.Model)
	if err != nil {
		return err
	}
	var todo []int
	queued := map[string]bool{}
	for i, hash := range hashes {
		if _, ok := have[hash]; !ok && !queued[hash] {
			queued[hash] = true
			todo = append(todo, i)
		}
	}
	for start := 0; start < len(todo); start += embedChunk {
		part := todo[start:min(start+embedChunk, len(todo))]
		in := make([]string, len(part))
		for j, i := range part {
			in[j] = texts[i]
		}
		vecs, err := h.o.Embedder.Embed(ctx, b, in)
		if err != nil {
			return err
		}
		vs := make([]store.Vector, len(part))
		for j, i := range part {
			vs[j] = store.Vector{Hash: hashes[i], Vec: vecs[j]}
		}
		if err := h.o.Vectors.PutVectors(ctx, agentID, b.Model, vs); err != nil {
			return err
		}
	}
	// Everything stored until now that this knowledge does not use goes.
	// The queue runs one job per agent at a time, so no newer knowledge's
	// vectors are among them; should a rescued job overlap another, what
	// it deletes is found missing and embedded again (Sweep).
	if _, err := h.o.Vectors.KeepVectors(ctx, agentID, b.Model, hashes, store.Now().Add(time.Millisecond)); err != nil {
		return err
	}
	h.forget(agentID)
	h.log.InfoContext(ctx, "embedded the agent's passages", "agent", agentID, "model", b.Model, "new", len(todo), "passages", len(hashes))
	return nil
}

// forget drops the agent's vectors from memory: they are read again.
func (h *Hybrid) forget(agentID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if av := h.agents[agentID]; av != nil {
		h.bytes -= av.byteLen
		delete(h.agents, agentID)
	}
}

// Changed is told that an agent's knowledge or pages changed through this
// instance (beside KB.Invalidate): an embedding is queued, in the
// background, for an agent with embeddings this instance has answered.
// Others are found by Sweep once a message finds their vectors missing.
func (h *Hybrid) Changed(agentID string) {
	h.mu.Lock()
	accountID, ok := h.seen[agentID]
	h.mu.Unlock()
	if !ok || h.o.Enqueue == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.o.Enqueue(ctx, accountID, agentID); err != nil {
			h.log.Warn("queueing an embedding failed", "agent", agentID, "err", err)
			h.mu.Lock()
			h.pending[agentID] = accountID // the sweep tries again
			h.mu.Unlock()
		}
	}()
}

// Sweep queues an embedding for every agent whose vectors a message found
// missing since the last sweep. Run it periodically (serve does, every
// minute); the queue keeps one job per agent waiting.
func (h *Hybrid) Sweep(ctx context.Context) {
	h.mu.Lock()
	pending := h.pending
	h.pending = map[string]string{}
	h.mu.Unlock()
	if h.o.Enqueue == nil {
		return
	}
	for agentID, accountID := range pending {
		if err := h.o.Enqueue(ctx, accountID, agentID); err != nil {
			h.log.WarnContext(ctx, "queueing an embedding failed", "agent", agentID, "err", err)
			h.mu.Lock()
			h.pending[agentID] = accountID // the next sweep tries again
			h.mu.Unlock()
		}
	}
}
