package agent

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"

	"parley/internal/domain"
	"parley/internal/retrieval"
)

// KBOptions tune the knowledge-base agent's index cache. The zero value
// gives the defaults.
type KBOptions struct {
	// Builders is how many indexes may be built at once; 0 means half the
	// CPUs (GOMAXPROCS/2), at least one, so one tenant's edits cannot take
	// every core from the chats.
	Builders int
	// CacheBytes bounds the memory of the indexes kept (as
	// retrieval.Builder.Bytes estimates it); 0 means DefaultKBCacheBytes.
	// The least recently used agents' indexes go first; their next
	// message builds again.
	CacheBytes int
	// OnBuild, when set, is called after every build with the agent, the
	// entries it analysed (see retrieval.Builder.Analysed), how long it
	// took and its error.
	OnBuild func(agentID string, analysed int, took time.Duration, err error)
}

// DefaultKBCacheBytes is the default bound of the index cache: about ten
// agents at the default knowledge bound, or thousands of typical ones.
const DefaultKBCacheBytes = 256 << 20

// buildTimeout bounds one build's reads of the store.
const buildTimeout = time.Minute

var (
	errBuildFailed = errors.New("agent: building the knowledge index failed")
	errKBStopped   = errors.New("agent: the knowledge-base agent is stopped")
)

// kbAgent is one agent's place in the cache: its index, the version it was
// built for, and where its next build stands. Guarded by KB.mu, except
// builder, which only the build in progress uses.
type kbAgent struct {
	id, accountID string
	ix            *retrieval.Index // nil until the first build succeeds
	version       time.Time        // the index's knowledge is at least this version's
	want          time.Time        // the newest version a message asked for
	target        time.Time        // want when the build under way began
	builder       *retrieval.Builder
	bytes         int
	state         buildState
	again         bool          // asked for while building: build once more
	ready         *firstBuild   // messages waiting for a first index wait for the next build
	used          *list.Element // in KB.lru
}

// firstBuild is the outcome of the build that messages for an agent
// without an index wait for.
type firstBuild struct {
	done chan struct{} // closed when ix or err is set
	ix   *retrieval.Index
	err  error
}

type buildState uint8

const (
	idle buildState = iota
	queued
	building
)

// index returns the agent's index. A message never waits for a rebuild: if
// the agent changed since its index was built (UpdatedAt, also changed by
// another instance), it is answered from that index and a build is queued
// (once, however many messages arrive). Only an agent without any index
// yet — its first message since the process started, or since the cache
// let it go — waits for a build, which the knowledge bounds keep short.
func (kb *KB) index(ctx context.Context, a domain.Agent) (*retrieval.Index, error) {
	kb.mu.Lock()
	ag := kb.agents[a.ID]
	if ag == nil {
		ag = &kbAgent{id: a.ID, accountID: a.AccountID, builder: retrieval.NewBuilder()}
		ag.used = kb.lru.PushFront(ag)
		kb.agents[a.ID] = ag
	} else {
		kb.lru.MoveToFront(ag.used)
	}
	if a.UpdatedAt.After(ag.want) {
		ag.want = a.UpdatedAt
	}
	kb.request(ag)
	if ix := ag.ix; ix != nil {
		kb.mu.Unlock()
		return ix, nil
	}
	if kb.stopped {
		kb.mu.Unlock()
		return nil, errKBStopped
	}
	if ag.ready == nil {
		ag.ready = &firstBuild{done: make(chan struct{})}
	}
	ready := ag.ready
	kb.mu.Unlock()
	select {
	case <-ready.done:
		return ready.ix, ready.err
	case <-ctx.Done():
		return nil, ctx.Err() // the build goes on; the next message finds it
	}
}

// Invalidate is told that an agent's knowledge changed through this
// instance: a build starts now rather than on the next message, and until
// it ends messages are answered from the index there is.
func (kb *KB) Invalidate(agentID string) {
	kb.mu.Lock()
	defer kb.mu.Unlock()
	if ag := kb.agents[agentID]; ag != nil && (ag.ix != nil || ag.state == building) {
		kb.schedule(ag)
	}
}

// request asks for a build of ag when a message needs one: there is no
// index, or it (or the build under way) is older than the newest version a
// message asked for.
func (kb *KB) request(ag *kbAgent) {
	switch ag.state {
	case building:
		if ag.want.After(ag.target) {
			ag.again = true
		}
	case idle:
		if ag.ix == nil || ag.want.After(ag.version) {
			kb.schedule(ag)
		}
	}
}

// schedule queues a build of ag, or, while one runs, asks for another
// after it. An agent without an index goes first: a message waits for it.
func (kb *KB) schedule(ag *kbAgent) {
	switch ag.state {
	case building:
		ag.again = true
		return
	case queued:
		return
	}
	if kb.stopped {
		return
	}
	ag.state = queued
	if ag.ix == nil {
		kb.cold.push(ag)
	} else {
		kb.warm.push(ag)
	}
	if kb.running < kb.builders {
		kb.running++
		kb.wg.Add(1)
		go kb.work()
	}
}

// work builds queued indexes until there are none. Builders are started
// when work is queued and end when it is done, so an idle instance has
// none.
func (kb *KB) work() {
	defer kb.wg.Done()
	for {
		kb.mu.Lock()
		ag := kb.cold.pop()
		if ag == nil {
			ag = kb.warm.pop()
		}
		if ag == nil || kb.stopped {
			kb.running--
			kb.mu.Unlock()
			return
		}
		ag.state, ag.again, ag.target = building, false, ag.want
		want := ag.want
		kb.mu.Unlock()

		start := time.Now()
		ix, version, err := kb.build(ag, want)
		took := time.Since(start)
		analysed, bytes := ag.builder.Analysed(), ag.builder.Bytes()

		kb.mu.Lock()
		ag.state = idle
		if err == nil {
			kb.bytes += bytes - ag.bytes
			ag.ix, ag.version, ag.bytes = ix, version, bytes
		}
		if r := ag.ready; r != nil {
			r.ix, r.err = ix, err
			close(r.done)
			ag.ready = nil
		}
		if ag.again {
			kb.schedule(ag)
		}
		kb.evict(ag)
		kb.mu.Unlock()
		if kb.onBuild != nil {
			kb.onBuild(ag.id, analysed, took, err)
		}
	}
}

// build loads and indexes an agent's knowledge. The index is labelled
// with the newest version known when the load began, the one asked for
// (want) or the one read: the knowledge loaded after both is at least that
// new.
func (kb *KB) build(ag *kbAgent, want time.Time) (ix *retrieval.Index, version time.Time, err error) {
	ctx, cancel := context.WithTimeout(kb.ctx, buildTimeout)
	defer cancel()
	a, err := kb.src.Agent(ctx, ag.accountID, ag.id)
	if err != nil {
		return nil, time.Time{}, err
	}
	entries, err := kb.src.Knowledge(ctx, ag.id)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer func() {
		// A bug in the analysis must not take the process down from a
		// goroutine no request guards; the agent starts afresh.
		if recover() != nil {
			ag.builder = retrieval.NewBuilder()
			ix, err = nil, errBuildFailed
		}
	}()
	version = want
	if a.UpdatedAt.After(version) {
		version = a.UpdatedAt
	}
	return ag.builder.Build(entries), version, nil
}

// evict lets the least recently used agents' indexes go until the cache is
// within its bound, keeping agents a build is queued or running for and
// keep, the agent just built.
func (kb *KB) evict(keep *kbAgent) {
	for e := kb.lru.Back(); e != nil && kb.bytes > kb.cacheBytes; {
		ag := e.Value.(*kbAgent)
		e = e.Prev()
		if ag == keep || ag.state != idle || ag.ready != nil {
			continue
		}
		kb.lru.Remove(ag.used)
		delete(kb.agents, ag.id)
		kb.bytes -= ag.bytes
	}
}

// Stop ends the builders: builds in progress are cancelled, queued ones
// dropped, and messages waiting for a first index get an error. Call it
// once the server has stopped taking requests.
func (kb *KB) Stop() {
	kb.mu.Lock()
	kb.stopped = true
	kb.cancel()
	for _, q := range []*buildQueue{&kb.cold, &kb.warm} {
		for ag := q.pop(); ag != nil; ag = q.pop() {
			ag.state = idle
			if r := ag.ready; r != nil {
				r.err = errKBStopped
				close(r.done)
				ag.ready = nil
			}
		}
	}
	kb.mu.Unlock()
	kb.wg.Wait()
}

// kbCache is the KB's index cache and its builders.
type kbCache struct {
	src        Source
	builders   int
	cacheBytes int
	onBuild    func(agentID string, analysed int, took time.Duration, err error)
	ctx        context.Context // of the builds; cancelled by Stop
	cancel     context.CancelFunc
	wg         sync.WaitGroup

	mu         sync.Mutex
	agents     map[string]*kbAgent // by agent id
	lru        *list.List          // of *kbAgent, most recently used first
	bytes      int                 // the agents' bytes, summed
	cold, warm buildQueue          // builds for agents without an index, and rebuilds
	running    int                 // builders
	stopped    bool
}

func (c *kbCache) init(src Source, o KBOptions) {
	if o.Builders <= 0 {
		o.Builders = defaultBuilders()
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultKBCacheBytes
	}
	c.src, c.builders, c.cacheBytes, c.onBuild = src, o.Builders, o.CacheBytes, o.OnBuild
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.agents, c.lru = make(map[string]*kbAgent), list.New()
}
