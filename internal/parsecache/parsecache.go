// Package parsecache remembers what a parse function made of a byte
// string, so that the same agent config is not decoded from JSON again on
// every chat: the router asks whether the agent has an LLM, the LLM
// backend reads its settings, the chat reads its handoff settings — three
// decodings of the same few hundred bytes per message, for a config that
// changes only when its owner edits it.
//
// The parse function must be pure (the same bytes always give the same
// result), and what it returns is shared between callers: they must not
// change it (a map in it, say).
package parsecache

import "sync"

// Cache is safe for concurrent use.
type Cache[T any] struct {
	parse func([]byte) T
	max   int
	mu    sync.Mutex
	m     map[string]T
}

// New returns a cache of at most max results of parse. When it is full it
// starts again empty: the configs in use come back at once, and one that
// is no longer used does not stay.
func New[T any](max int, parse func([]byte) T) *Cache[T] {
	return &Cache[T]{parse: parse, max: max, m: make(map[string]T)}
}

// Get returns parse(raw), from memory when raw was seen before.
func (c *Cache[T]) Get(raw []byte) T {
	c.mu.Lock()
	v, ok := c.m[string(raw)] // no copy of raw to look up
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.parse(raw)
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[string(raw)] = v
	c.mu.Unlock()
	return v
}
