package sqlite

import (
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// The cache layer's one entry point: events recorded by writes reach every
// cache they concern when the batch is applied, committed or not.
func TestCacheEventsApply(t *testing.T) {
	t.Parallel()
	agent := func(c *caches) bool {
		_, ok := c.keys.peek("wk_x")
		return ok
	}
	fill := func(c *caches) {
		c.convs.put("cv_a", cachedConv{conv: domain.Conversation{ID: "cv_a"}, messages: 1})
		c.polls.put("cv_a", store.PollState{AgentID: "ag_1", Mode: domain.ModeAI})
		c.keys.put("wk_x", domain.Agent{ID: "ag_1"})
	}
	for _, committed := range []bool{true, false} {
		c := newCaches()
		fill(&c)
		// A write that only touched a conversation's waiting flag leaves
		// its poll state and the keys alone.
		c.pending = append(c.pending, cacheEvent{what: forgetConversation, id: "cv_a"})
		c.apply(committed)
		if _, ok := c.convs.peek("cv_a"); ok {
			t.Errorf("committed %v: the conversation was kept", committed)
		}
		if _, ok := c.polls.peek("cv_a"); !ok || !agent(&c) {
			t.Errorf("committed %v: forgetting a conversation dropped its poll state or the keys", committed)
		}

		// A message: its new value is kept only once committed.
		next := domain.Conversation{ID: "cv_a", LastMessage: "hi"}
		c.pending = append(c.pending, cacheEvent{what: putConversation | forgetPollState, id: "cv_a", conv: next, messages: 2})
		c.apply(committed)
		got, ok := c.convs.peek("cv_a")
		if ok != committed || (ok && (got.conv != next || got.messages != 2)) {
			t.Errorf("committed %v: after a put the cache holds %+v, %v", committed, got, ok)
		}
		if _, ok := c.polls.peek("cv_a"); ok {
			t.Errorf("committed %v: the poll state outlived an operator's message", committed)
		}

		// An agent's change forgets every key, committed or not.
		c.pending = append(c.pending, cacheEvent{what: forgetAgents})
		c.apply(committed)
		if agent(&c) {
			t.Errorf("committed %v: a key outlived an agent's change", committed)
		}
		if len(c.pending) != 0 {
			t.Errorf("apply left %d events", len(c.pending))
		}

		// Forgetting every conversation also forgets every poll state.
		fill(&c)
		c.pending = append(c.pending, cacheEvent{what: forgetConversations})
		c.apply(committed)
		_, conv := c.convs.peek("cv_a")
		_, poll := c.polls.peek("cv_a")
		if conv || poll || !agent(&c) {
			t.Errorf("committed %v: after forgetConversations: conversation %v, poll state %v, keys %v; want false, false, true",
				committed, conv, poll, agent(&c))
		}
	}
}

// Inside a batch, a write reads a conversation as the newest event about
// it left it; events about agents or other conversations do not count, and
// a write undone takes its events with it.
func TestCacheLatestAndUndo(t *testing.T) {
	t.Parallel()
	c := newCaches()
	put := cacheEvent{what: putConversation, id: "cv_a", conv: domain.Conversation{ID: "cv_a", Misses: 1}}
	c.pending = append(c.pending, put, cacheEvent{what: forgetAgents}, cacheEvent{what: forgetConversation, id: "cv_b"})
	if ev, ok := c.latest("cv_a"); !ok || ev.conv != put.conv {
		t.Fatalf("latest = %+v, %v; want the put", ev, ok)
	}
	mark := c.mark()
	c.pending = append(c.pending, cacheEvent{what: forgetConversations})
	if ev, ok := c.latest("cv_a"); !ok || ev.what != forgetConversations {
		t.Fatalf("latest after forgetting all = %+v, %v", ev, ok)
	}
	c.undo(mark)
	if ev, ok := c.latest("cv_a"); !ok || ev.conv != put.conv {
		t.Fatalf("latest after undo = %+v, %v; want the put again", ev, ok)
	}
	if _, ok := c.latest("cv_c"); ok {
		t.Fatal("latest found an event for a conversation no write touched")
	}
}
