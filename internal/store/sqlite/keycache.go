package sqlite

import (
	"sync"

	"parley/internal/domain"
)

// keyCache remembers which agent an active widget key belongs to, so the
// widget's every request (init, chat, poll) does not read the key and the
// agent again. It is exact, not a time-limited guess: this store is the
// only writer of the file's agents and keys (a SQLite database is served
// by one process; several instances need PostgreSQL, which has no such
// cache), and every write that can change what AgentByKey returns — a key
// deactivated or created, an agent's name or config updated, its knowledge
// changed (which bumps the agent's UpdatedAt, the version the knowledge
// index is cached under) — empties the cache once committed (an event
// forgetAgents, applied in cache.go).
//
// Only hits are kept: an unknown or inactive key is read again each time,
// so a key that is created or reactivated works at once and made-up keys
// cannot grow the cache.
type keyCache struct {
	mu     sync.Mutex
	gen    uint64 // bumped by every invalidation
	agents map[string]domain.Agent
}

// get returns the cached agent for key and the generation to pass to put
// after reading it from the database on a miss.
func (c *keyCache) get(key string) (domain.Agent, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.agents[key] // a.Config is shared, read-only (domain.AgentConfig)
	return a, c.gen, ok
}

// put remembers a read made at generation gen, unless an invalidation
// happened since: what was read may already be stale.
func (c *keyCache) put(key string, a domain.Agent, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.agents == nil {
		c.agents = make(map[string]domain.Agent)
	}
	c.agents[key] = a
}

// invalidate forgets every key. Only caches.apply calls it: a write
// records forgetAgents instead (cache.go).
func (c *keyCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.agents)
}
