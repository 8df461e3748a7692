package sqlite

import "sync"

// exactCache keeps one value per id — the agent behind a widget key, what
// a poll needs, or the conversation itself — so that the widget's hot
// paths read nothing from the database. It is exact, not a time-limited guess: this store is the
// only writer of its file, and every write that changes a cached value
// forgets it, or puts the new value, once the write is committed.
//
// A read that missed and went to the database stores what it read only if
// no write to that id was committed while it read: reads in flight are
// tracked per id, and a write marks them stale (forgetAll: all of them).
type exactCache[V any] struct {
	max     int // bound on entries; beyond it an arbitrary entry makes room
	mu      sync.Mutex
	values  map[string]V
	reading map[string]*cacheRead // reads in flight, by id
}

// cacheRead is the reads in flight for one id.
type cacheRead struct {
	n     int
	stale bool
}

func newExactCache[V any](max int) *exactCache[V] {
	return &exactCache[V]{max: max, values: make(map[string]V), reading: make(map[string]*cacheRead)}
}

// get returns id's cached value, or else starts a read: pass the returned
// *cacheRead to done with what was read.
func (c *exactCache[V]) get(id string) (V, *cacheRead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.values[id]; ok {
		return v, nil, true
	}
	r := c.reading[id]
	if r == nil {
		r = &cacheRead{}
		c.reading[id] = r
	}
	r.n++
	var zero V
	return zero, r, false
}

// peek returns id's cached value without starting a read: for the writer,
// whose own reads need no tracking (nothing writes while it reads).
func (c *exactCache[V]) peek(id string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.values[id]
	return v, ok
}

// done ends a read begun by get; v is kept when the read succeeded (ok)
// and no write made it stale.
func (c *exactCache[V]) done(id string, r *cacheRead, v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.n--; r.n == 0 && c.reading[id] == r {
		delete(c.reading, id)
	}
	if ok && !r.stale {
		c.store(id, v)
	}
}

// put sets id's value as a committed write left it, and makes the reads
// in flight stale: they may have read what was there before.
func (c *exactCache[V]) put(id string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.store(id, v)
	if r := c.reading[id]; r != nil {
		r.stale = true
	}
}

func (c *exactCache[V]) store(id string, v V) {
	if _, ok := c.values[id]; !ok && len(c.values) >= c.max {
		for k := range c.values {
			delete(c.values, k)
			break
		}
	}
	c.values[id] = v
}

// forget drops id's value; call it after a write to it returns, whether or
// not it succeeded.
func (c *exactCache[V]) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.values, id)
	if r := c.reading[id]; r != nil {
		r.stale = true
	}
}

// forgetAll drops every value (a write to many conversations).
func (c *exactCache[V]) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.values)
	for _, r := range c.reading {
		r.stale = true
	}
}
