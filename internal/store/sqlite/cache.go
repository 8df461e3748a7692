package sqlite

import (
	"parley/internal/domain"
	"parley/internal/store"
)

// The cache layer. This store is the only writer of its file (a SQLite
// database is served by one process; several instances need PostgreSQL,
// which has no such caches), so it can keep exact copies of what the
// widget's hot paths read, and not time-limited guesses:
//
//   - keys: widget key → agent, for AgentByKey (keycache.go);
//   - polls: conversation → what a poll needs, for PollState (pollcache.go);
//   - convs: conversation → itself and its number of messages, for
//     Conversation and for the writes' own checks (convcache.go).
//
// All three are exactCaches (exactcache.go): reads fill them, and a read
// that raced a write does not cache what it read. Writes change them in
// one way only: a write calls s.invalidate, inside its write function,
// with what it changed, and the committer applies every event of a batch
// in commit order, in one place (apply), once the batch is on disk and
// before any of its writers is told it is done. A write rolled back to its savepoint
// takes its events with it (nothing it did is on disk); a failed commit
// turns every event into forgetting what it touched. So no write path
// needs to remember which caches its change reaches, only what it changed.

// caches are the store's caches and the events of the batch being
// written; only the committer's goroutine touches pending.
type caches struct {
	keys    *exactCache[domain.Agent]    // widget key → agent
	polls   *exactCache[store.PollState] // conversation → what a poll needs
	convs   *exactCache[cachedConv]      // conversation → itself and its count
	pending []cacheEvent
}

func newCaches() caches {
	return caches{
		keys:  newExactCache[domain.Agent](maxAgentKeys),
		polls: newExactCache[store.PollState](maxPollStates),
		convs: newExactCache[cachedConv](maxConversations),
	}
}

// cacheEffect is what a write changed, as the caches see it; an event may
// combine several.
type cacheEffect uint8

const (
	putConversation     cacheEffect = 1 << iota // conv, holding messages messages, is id's new value
	forgetConversation                          // id's conversation changed in a way the write does not track
	forgetPollState                             // id's mode or latest operator message changed
	forgetConversations                         // many conversations changed (and their poll states)
	forgetAgents                                // an agent, its knowledge or a key changed
	forgetEverything    = forgetConversations | forgetAgents
)

// cacheEvent is one write's effect on the caches.
type cacheEvent struct {
	what     cacheEffect
	id       string // the conversation
	conv     domain.Conversation
	messages int
}

// invalidate records, inside a write, what the write changed: the cache
// layer's one entry point for writes. Only the committer's goroutine runs
// writes, so the record needs no lock.
func (s *Store) invalidate(ev cacheEvent) { s.cache.pending = append(s.cache.pending, ev) }

// wrote records the conversation as a write leaves it and how many
// messages it then holds (the hot path's event); poll also forgets its
// poll state.
func (s *Store) wrote(c domain.Conversation, messages int, poll bool) {
	ev := cacheEvent{what: putConversation, id: c.ID, conv: c, messages: messages}
	if poll {
		ev.what |= forgetPollState
	}
	s.invalidate(ev)
}

// mark and undo bracket one write in a batch: undo drops the events the
// write recorded after mark, when its savepoint was rolled back.
func (c *caches) mark() int { return len(c.pending) }

func (c *caches) undo(mark int) {
	clear(c.pending[mark:]) // drop the references the records hold
	c.pending = c.pending[:mark]
}

// latest is the newest pending event of the batch that decides what
// conversation id is inside the write: ok false when none does.
func (c *caches) latest(id string) (ev cacheEvent, ok bool) {
	for i := len(c.pending) - 1; i >= 0; i-- {
		ev := c.pending[i]
		if ev.what&forgetConversations != 0 ||
			(ev.id == id && ev.what&(putConversation|forgetConversation) != 0) {
			return ev, true
		}
	}
	return cacheEvent{}, false
}

// apply runs on the committer once the batch's commit returned:
// committed, the events become the caches; not, everything they touched
// is forgotten, which is always safe.
func (c *caches) apply(committed bool) {
	for _, ev := range c.pending {
		if ev.what&forgetConversations != 0 {
			c.convs.forgetAll()
			c.polls.forgetAll()
		}
		if ev.what&forgetAgents != 0 {
			c.keys.forgetAll()
		}
		switch {
		case ev.what&putConversation != 0 && committed:
			c.convs.put(ev.id, cachedConv{conv: ev.conv, messages: ev.messages})
		case ev.what&(putConversation|forgetConversation) != 0:
			c.convs.forget(ev.id)
		}
		if ev.what&forgetPollState != 0 {
			c.polls.forget(ev.id)
		}
	}
	clear(c.pending) // drop the references the records hold
	c.pending = c.pending[:0]
}
