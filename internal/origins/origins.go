// Package origins remembers which sites (the Origin header) an agent's
// widget is used from, allowed or refused, and lists them for the owner:
// the dashboard's hint under the allowed origins and the management API's
// GET /api/v1/agents/{id}/origins (issue 18).
//
// The widget's hot path must not pay a database write per request, so the
// Recorder writes an (agent, origin) pair at most once per Interval (an
// hour by default) on each instance: the first request from an origin is
// written at once, so an owner who has just tightened the list sees the
// refused site right away; the requests after it are counted in memory
// and added with the pair's next write, or by Flush at shutdown. The cost:
// a last-seen time up to an Interval behind, and on a crash the counts of
// at most the last Interval lost. Nothing runs in the background.
package origins

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// Store is what the package reads and writes.
type Store interface {
	store.Origins
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
}

// DefaultInterval is how long a Recorder waits before writing a pair
// again. DefaultMaxPairs bounds the pairs it holds in memory.
const (
	DefaultInterval = time.Hour
	DefaultMaxPairs = 10000
)

// Recorder counts widget requests per agent and origin and writes them to
// the store coalesced (package comment). Safe for concurrent use.
type Recorder struct {
	store    store.Origins
	now      func() time.Time
	log      *slog.Logger
	interval time.Duration
	maxPairs int

	mu    sync.Mutex
	pairs map[pair]*tally
}

type pair struct{ agent, origin string }

type tally struct {
	written time.Time // when the pair was last written ("" never)
	last    time.Time // the latest request counted
	pending int64     // requests counted since the last write
}

// RecorderOptions configure a Recorder; Store is required.
type RecorderOptions struct {
	Store    store.Origins
	Now      func() time.Time // default time.Now
	Logger   *slog.Logger     // default slog.Default()
	Interval time.Duration    // default DefaultInterval
	MaxPairs int              // default DefaultMaxPairs
}

// NewRecorder returns a Recorder over o.Store.
func NewRecorder(o RecorderOptions) *Recorder {
	r := &Recorder{store: o.Store, now: o.Now, log: o.Logger, interval: o.Interval, maxPairs: o.MaxPairs,
		pairs: make(map[pair]*tally)}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.interval <= 0 {
		r.interval = DefaultInterval
	}
	if r.maxPairs <= 0 {
		r.maxPairs = DefaultMaxPairs
	}
	return r
}

// Worth says whether an Origin header is recorded at all: not an absent
// one (server-to-server), not "null" (sandboxed frames, file: pages: no
// site to allow) and not one longer than an allowed origin may be.
func Worth(origin string) bool {
	return origin != "" && origin != "null" && len(origin) <= domain.MaxOriginChars
}

// Seen counts one widget request for the agent from origin. It writes to
// the store only when the pair was not written in the last interval; then
// it writes on the caller's goroutine, and a failure is logged, not
// returned: the widget request goes on, and the count is tried again with
// the next request.
func (r *Recorder) Seen(ctx context.Context, agentID, origin string) {
	if !Worth(origin) {
		return
	}
	now := r.now()
	k := pair{agentID, origin}
	r.mu.Lock()
	t := r.pairs[k]
	if t == nil {
		if len(r.pairs) >= r.maxPairs {
			r.sweep(now)
		}
		if len(r.pairs) >= r.maxPairs {
			// Full of pairs written within the interval: this one is not
			// counted, which keeps memory and writes bounded whatever
			// Origin headers are sent.
			r.mu.Unlock()
			return
		}
		t = &tally{}
		r.pairs[k] = t
	}
	t.pending++
	if now.After(t.last) {
		t.last = now
	}
	if !t.written.IsZero() && now.Sub(t.written) < r.interval {
		r.mu.Unlock()
		return
	}
	o := store.SeenOrigin{AgentID: agentID, Origin: origin, Count: t.pending, LastSeen: t.last}
	t.pending, t.written = 0, now
	r.mu.Unlock()
	if err := r.store.RecordOrigin(ctx, o); err != nil {
		r.log.WarnContext(ctx, "recording a widget origin failed", "agent", agentID, "err", err)
		r.mu.Lock()
		if t := r.pairs[k]; t != nil {
			t.pending += o.Count
			t.written = time.Time{}
		}
		r.mu.Unlock()
	}
}

// sweep forgets the pairs not written within the interval; their pending
// counts (requests since the last write, at most an interval's) are lost.
// Called with mu held.
func (r *Recorder) sweep(now time.Time) {
	for k, t := range r.pairs {
		if now.Sub(t.written) >= r.interval {
			delete(r.pairs, k)
		}
	}
}

// Flush writes every pending count now. Call it at shutdown, after the
// server stopped taking requests; it returns the first error and goes on
// with the other pairs.
func (r *Recorder) Flush(ctx context.Context) error {
	now := r.now()
	r.mu.Lock()
	var due []store.SeenOrigin
	for k, t := range r.pairs {
		if t.pending > 0 {
			due = append(due, store.SeenOrigin{AgentID: k.agent, Origin: k.origin, Count: t.pending, LastSeen: t.last})
			t.pending, t.written = 0, now
		}
	}
	r.mu.Unlock()
	var first error
	for _, o := range due {
		if err := r.store.RecordOrigin(ctx, o); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Seen is one origin as the owner sees it.
type Seen struct {
	Origin     string    `json:"origin"`
	LastSeenAt time.Time `json:"last_seen_at"`
	Count      int64     `json:"count"`
	// Allowed: the agent's current origin rule lets this origin in.
	Allowed bool `json:"allowed"`
}

// Service lists an agent's recent origins for the dashboard and the API.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns a Service over s; now defaults to time.Now.
func NewService(s Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: s, now: now}
}

// Recent lists the origins the agent's widget was used from in the last
// store.SeenOriginsKept, most recent first, each marked with whether the
// agent's current list allows it. domain.ErrNotFound for an agent not in
// the account.
func (s *Service) Recent(ctx context.Context, accountID, agentID string) ([]Seen, error) {
	ag, err := s.store.Agent(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	return s.For(ctx, ag)
}

// For is Recent for an agent already loaded.
func (s *Service) For(ctx context.Context, ag domain.Agent) ([]Seen, error) {
	rows, err := s.store.RecentOrigins(ctx, ag.AccountID, ag.ID, s.now().Add(-store.SeenOriginsKept))
	if err != nil {
		return nil, err
	}
	out := make([]Seen, len(rows))
	for i, o := range rows {
		out[i] = Seen{Origin: o.Origin, LastSeenAt: o.LastSeen, Count: o.Count, Allowed: ag.Config.CheckOrigin(o.Origin) == nil}
	}
	return out, nil
}
