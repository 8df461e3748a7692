package sources

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/store"
)

// NewSource is what an owner asks for. Optional fields are pointers:
// absent takes the default, present is checked (0 pages is refused, not
// taken for the default).
type NewSource struct {
	Kind     string // "website", the only kind
	URL      string // http or https, checked by the outbound guard
	MaxPages *int   // nil: domain.DefaultMaxPages; 1..domain.MaxSourcePages
	// SyncEvery is a Go duration ("6h", "90m"); "0": only on demand; nil:
	// domain.DefaultSyncEvery; at least MinSyncEvery otherwise.
	SyncEvery *string
}

// maxURLBytes bounds a source's URL, as browsers and servers commonly do.
const maxURLBytes = 2048

// check validates n and returns the store's input.
func (s *Service) check(ctx context.Context, n NewSource) (store.NewSource, error) {
	out := store.NewSource{Kind: domain.SourceWebsite, MaxPages: domain.DefaultMaxPages, SyncEvery: domain.DefaultSyncEvery}
	if n.Kind != string(domain.SourceWebsite) {
		return out, invalid(ProblemKind, `kind must be "website"`)
	}
	out.URL = strings.TrimSpace(n.URL)
	switch {
	case out.URL == "":
		return out, invalid(ProblemURLMissing, "url is required")
	case len(out.URL) > maxURLBytes:
		return out, invalid(ProblemURLLong, fmt.Sprintf("url is longer than %d bytes", maxURLBytes))
	}
	if err := store.CheckText(out.URL); err != nil {
		return out, &InputError{Problem: ProblemURLText, Msg: err.Error(), Err: err}
	}
	if err := s.o.Guard.CheckURL(ctx, out.URL); err != nil {
		p := ProblemURL
		if outbound.IsRefusal(err) {
			p = ProblemURLRefused
		}
		return out, &InputError{Problem: p, Msg: "url: " + err.Error(), Err: err}
	}
	if n.MaxPages != nil {
		if *n.MaxPages < 1 || *n.MaxPages > domain.MaxSourcePages {
			return out, invalid(ProblemMaxPages, fmt.Sprintf("max_pages must be from 1 to %d", domain.MaxSourcePages))
		}
		out.MaxPages = *n.MaxPages
	}
	if n.SyncEvery != nil {
		d, err := time.ParseDuration(strings.TrimSpace(*n.SyncEvery))
		switch {
		case err != nil:
			return out, invalid(ProblemSyncEvery, `sync_every must be a duration such as "24h" or "90m", or "0" for never`)
		case d < 0 || (d > 0 && d < MinSyncEvery):
			return out, invalid(ProblemSyncShort, fmt.Sprintf(`sync_every must be at least %s, or "0" for never`, formatEvery(MinSyncEvery)))
		}
		out.SyncEvery = d.Truncate(time.Millisecond) // the precision stored
	}
	return out, nil
}

// Create adds a website source to the account's agent and starts its
// first sync.
func (s *Service) Create(ctx context.Context, accountID, agentID string, n NewSource) (domain.Source, error) {
	in, err := s.check(ctx, n)
	if err != nil {
		return domain.Source{}, err
	}
	existing, err := s.List(ctx, accountID, agentID) // ErrNotFound for another account's agent
	if err != nil {
		return domain.Source{}, err
	}
	// Counted outside the insert: two creations at the same moment may
	// pass the bound by one, which costs a crawl, not correctness (the
	// text bound is kept by RunSync and the index).
	if len(existing) >= MaxSourcesPerAgent {
		return domain.Source{}, invalid(ProblemTooMany, fmt.Sprintf("an agent may have at most %d sources", MaxSourcesPerAgent))
	}
	in.AccountID, in.AgentID = accountID, agentID
	src, err := s.o.Store.CreateSource(ctx, in)
	if err != nil {
		return domain.Source{}, err
	}
	s.o.Audit.Record(ctx, accountID, audit.SourceCreate, audit.Target("source", src.ID))
	return s.enqueue(ctx, src), nil
}

// enqueue hands src's sync to the queue. A queue that fails leaves the
// source failed with a word on it, not queued forever.
func (s *Service) enqueue(ctx context.Context, src domain.Source) domain.Source {
	if s.o.Queue == nil {
		return src
	}
	err := s.o.Queue.EnqueueSync(ctx, src.ID)
	if err == nil {
		return src
	}
	s.o.Logger.ErrorContext(ctx, "queueing a source's sync failed", "source", src.ID, "err", err)
	const msg = "the sync could not be started; try again with Sync now"
	why := []domain.Reason{{Code: ReasonNotStarted}}
	if err := s.o.Store.FailSourceSync(context.WithoutCancel(ctx), src.ID, store.SourceFailure{At: s.o.Now(), Error: msg, Reasons: why}); err != nil {
		return src
	}
	src.Status, src.Error, src.ErrorReasons = domain.SourceFailed, msg, why
	return src
}

// List is the agent's sources, oldest first.
func (s *Service) List(ctx context.Context, accountID, agentID string) ([]domain.Source, error) {
	if _, err := s.o.Store.Agent(ctx, accountID, agentID); err != nil {
		return nil, err
	}
	return s.o.Store.Sources(ctx, accountID, agentID)
}

// Get is one of the agent's sources.
func (s *Service) Get(ctx context.Context, accountID, agentID, sourceID string) (domain.Source, error) {
	src, err := s.o.Store.Source(ctx, accountID, sourceID)
	if err != nil {
		return domain.Source{}, err
	}
	if src.AgentID != agentID {
		return domain.Source{}, domain.ErrNotFound
	}
	return src, nil
}

// SyncNow starts a sync of the source now (unless one is queued or
// running, which the queue keeps to one); the schedule counts its next
// period from now.
func (s *Service) SyncNow(ctx context.Context, accountID, agentID, sourceID string) (domain.Source, error) {
	if _, err := s.Get(ctx, accountID, agentID, sourceID); err != nil {
		return domain.Source{}, err
	}
	src, err := s.o.Store.QueueSource(ctx, sourceID, s.o.Now())
	if err != nil {
		return domain.Source{}, err
	}
	return s.enqueue(ctx, src), nil
}

// Delete removes the source; from then on nothing from it answers (a sync
// still running finds it gone and keeps nothing).
func (s *Service) Delete(ctx context.Context, accountID, agentID, sourceID string) error {
	if _, err := s.Get(ctx, accountID, agentID, sourceID); err != nil {
		return err
	}
	if err := s.o.Store.DeleteSource(ctx, accountID, sourceID); err != nil {
		return err
	}
	s.o.Invalidate(agentID)
	s.o.Audit.Record(ctx, accountID, audit.SourceDelete, audit.Target("source", sourceID))
	return nil
}

// Pages lists the pages the source's last sync took in, without their
// texts.
func (s *Service) Pages(ctx context.Context, accountID, agentID, sourceID string) ([]store.SourcePageInfo, error) {
	if _, err := s.Get(ctx, accountID, agentID, sourceID); err != nil {
		return nil, err
	}
	return s.o.Store.SourcePages(ctx, sourceID)
}

// EnqueueDue starts the syncs the schedule says are due at now, and
// reports how many. A periodic job calls it; each source queued is due
// again a period later, so a call soon after finds nothing new.
func (s *Service) EnqueueDue(ctx context.Context, now time.Time) (int, error) {
	n := 0
	for {
		due, err := s.o.Store.DueSources(ctx, now, dueBatch)
		if err != nil {
			return n, err
		}
		for _, src := range due {
			src, err := s.o.Store.QueueSource(ctx, src.ID, now)
			if errors.Is(err, domain.ErrNotFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				return n, err
			}
			s.enqueue(ctx, src)
			n++
		}
		if len(due) < dueBatch {
			return n, nil
		}
	}
}

// FormatEvery writes a sync period the way owners write it: "6h",
// "90m", "0" for never.
func FormatEvery(d time.Duration) string { return formatEvery(d) }

func formatEvery(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	s := d.String() // "6h0m0s", "1h30m0s"
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
