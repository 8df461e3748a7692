// Package sources is the rules for an agent's website sources: adding one
// (its URL checked by the outbound guard), listing, syncing on demand and
// on a schedule, removing, and the sync itself (RunSync), which the job
// queue's worker calls. The management API and the dashboard both call the
// Service; neither holds a rule of its own.
//
// Errors are typed as agentadmin's are: *domain.InvalidError (400),
// domain.ErrNotFound (404, also for another account's agent or source).
package sources

import (
	"context"
	"log/slog"
	"time"

	"parley/internal/audit"
	"parley/internal/crawler"
	"parley/internal/domain"
	"parley/internal/extract"
	"parley/internal/outbound"
	"parley/internal/store"
)

// Store is what the Service reads and writes: the agents (to tell an
// account's own from others') and the sources.
type Store interface {
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	store.Sources
}

// Queue starts syncs in the background: the job queue implements it, with
// one job per source at a time (a second EnqueueSync while one is queued
// or running adds nothing). Its worker calls Service.RunSync.
type Queue interface {
	EnqueueSync(ctx context.Context, sourceID string) error
}

// Bounds of sources. The reasons are in docs/agent.md ("Website sources").
const (
	// DefaultMaxChars is the characters of page text an agent's sources
	// may hold, all sources together (PARLEY_SOURCES_MAX_CHARS).
	DefaultMaxChars = domain.DefaultSourcesMaxChars
	// MaxPageChars is the text kept of one page or document: as much as an
	// uploaded document may hold. The rest of a longer one is cut off.
	MaxPageChars = domain.MaxDocumentChars
	// MinSyncEvery is the shortest schedule: a crawl of up to 2,000 pages,
	// a few requests at a time, loads the owner's site and this server;
	// more often than hourly would mostly fetch unchanged pages.
	MinSyncEvery = time.Hour
	// MaxSourcesPerAgent bounds the crawls one agent can set off each
	// period (each may fetch up to domain.MaxSourcePages pages).
	MaxSourcesPerAgent = 20
	// progressEvery is how many pages a running sync takes in between
	// two writes of its progress.
	progressEvery = 10
	// dueBatch is how many due sources EnqueueDue reads at a time.
	dueBatch = 100
)

// Options are a Service's dependencies.
type Options struct {
	Store Store
	// Audit records sources created and deleted in the account's audit
	// log; nil: none.
	Audit *audit.Service
	// Queue runs syncs. Nil: sources are created and queued, but no sync
	// starts until a queue is configured.
	Queue Queue
	// Guard checks source URLs when they are saved, and its client makes
	// every request of a crawl.
	Guard *outbound.Guard
	// MaxChars bounds the page text of an agent's sources, all together;
	// 0: DefaultMaxChars.
	MaxChars int
	// Invalidate is told when an agent's pages changed, so its knowledge
	// index is rebuilt now rather than at the next message
	// (agent.KB.Invalidate). Nil: nobody is told.
	Invalidate func(agentID string)
	Now        func() time.Time // nil: time.Now
	Logger     *slog.Logger     // nil: slog.Default()
}

// Service applies the rules; see the package comment.
type Service struct {
	o Options
	// crawl is crawler.Crawl; tests of what a sync does with the pages
	// it is handed (atomicity, bounds, deletes meanwhile) set it to hand
	// over chosen documents at chosen moments.
	crawl func(ctx context.Context, cfg crawler.Config, start string, emit func(crawler.Document) error) (crawler.Result, error)
	// extract is extract.Extract; the same tests set it to read their
	// documents as plain text.
	extract func(data []byte, pageURL string) (extract.Document, error)
}

// New returns a Service on o.
func New(o Options) *Service {
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.Invalidate == nil {
		o.Invalidate = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Service{o: o, crawl: crawler.Crawl, extract: extract.Extract}
}

// MaxChars is the bound on an agent's source text the Service applies
// (the dashboard shows how much of it is in use).
func (s *Service) MaxChars() int { return s.o.MaxChars }
