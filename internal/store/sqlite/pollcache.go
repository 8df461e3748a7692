package sqlite

import (
	"context"
	"sync"

	"parley/internal/domain"
	"parley/internal/store"
)

// pollCache keeps each polled conversation's store.PollState, so that a
// widget poll with nothing new — most polls — reads nothing from the
// database. Like keyCache it is exact, not a time-limited guess: this store
// is the only writer of its file, and every write that can change a
// conversation's mode or add an operator message (AddMessage, AddExchange,
// SetMode, TakeOver, and DeleteUser, which hands conversations back to the
// AI) forgets what it changed once the write is committed.
//
// A read that missed and went to the database stores what it read only if
// no write to that conversation was committed while it read: reads in
// flight are tracked, and a write marks them stale.
type pollCache struct {
	mu      sync.Mutex
	states  map[string]store.PollState
	reading map[string]*pollRead // reads in flight, by conversation
}

// pollRead is the reads in flight for one conversation.
type pollRead struct {
	n     int
	stale bool
}

// maxPollStates bounds the cache (about 150 bytes an entry); beyond it an
// arbitrary entry makes room.
const maxPollStates = 100_000

// get returns id's cached state, or else starts a read: pass the returned
// *pollRead to done with what was read.
func (c *pollCache) get(id string) (store.PollState, *pollRead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.states[id]; ok {
		return st, nil, true
	}
	if c.reading == nil {
		c.reading = make(map[string]*pollRead)
	}
	r := c.reading[id]
	if r == nil {
		r = &pollRead{}
		c.reading[id] = r
	}
	r.n++
	return store.PollState{}, r, false
}

// done ends a read begun by get; st is kept when the read succeeded (ok)
// and no write made it stale.
func (c *pollCache) done(id string, r *pollRead, st store.PollState, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.n--; r.n == 0 && c.reading[id] == r {
		delete(c.reading, id)
	}
	if !ok || r.stale {
		return
	}
	if c.states == nil {
		c.states = make(map[string]store.PollState)
	}
	if len(c.states) >= maxPollStates {
		for k := range c.states {
			delete(c.states, k)
			break
		}
	}
	c.states[id] = st
}

// forget drops a conversation's state; call it after a write to it
// returns, whether or not it succeeded.
func (c *pollCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.states, id)
	if r := c.reading[id]; r != nil {
		r.stale = true
	}
}

// forgetAll drops every state (a write to many conversations).
func (c *pollCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.states)
	for _, r := range c.reading {
		r.stale = true
	}
}

// PollState reads through the cache (see pollCache).
func (s *Store) PollState(ctx context.Context, id string) (store.PollState, error) {
	st, r, ok := s.polls.get(id)
	if ok {
		return st, nil
	}
	err := s.queryRow(ctx, `
		SELECT agent_id, mode,
			COALESCE((SELECT max(seq) FROM messages WHERE conversation_id = c.id AND role = 'operator'), 0)
		FROM conversations c WHERE id = ?`, id).Scan(&st.AgentID, &st.Mode, &st.LastOperatorSeq)
	s.polls.done(id, r, st, err == nil)
	return st, notFound(err, domain.ErrNotFound)
}
