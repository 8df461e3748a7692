package sqlite

import (
	"context"

	"parley/internal/domain"
)

// The key cache (caches.keys, see cache.go) remembers which agent an active
// widget key belongs to, so the widget's every request (init, chat, poll)
// does not read the key and the agent again. It is an exactCache keyed by
// the widget key, like the poll and conversation caches. Every write that
// can change what AgentByKey returns — a key deactivated or created, an
// agent's name or config updated, its knowledge changed (which bumps the
// agent's UpdatedAt, the version the knowledge index is cached under) —
// records forgetAgents, and the committer forgets every key once the write
// is committed (caches.apply); reads in flight then are not cached, as
// forgetAll makes them stale.
//
// Only hits are kept: an unknown or inactive key is read again each time
// (exactCache.done with ok false stores nothing), so a key that is created
// or reactivated works at once and made-up keys cannot grow the cache. The
// cached domain.Agent's Config is shared by every caller and read-only
// (domain.AgentConfig).

// maxAgentKeys bounds the key cache, as the other two are bounded. An
// agent usually has one active key, so this holds the agents of 10,000
// widgets in use at once; past it an arbitrary entry makes room, and its
// key's next request reads the database once.
const maxAgentKeys = 10_000

// AgentByKey reads through the cache.
func (s *Store) AgentByKey(ctx context.Context, key string) (domain.Agent, error) {
	a, r, ok := s.cache.keys.get(key)
	if ok {
		return a, nil
	}
	a, err := scanAgent(s.queryRow(ctx, `
		SELECT `+agentCols+` FROM agents
		WHERE id = (SELECT agent_id FROM widget_keys WHERE key = ? AND active = 1)`, key))
	s.cache.keys.done(key, r, a, err == nil)
	return a, notFound(err, domain.ErrKeyInvalid)
}
