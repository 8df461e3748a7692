package sources

import (
	"context"
	"unicode/utf8"

	"parley/internal/domain"
)

// KnowledgeStore is what Knowledge reads: the agent (its version), the
// knowledge its owner typed, and its sources' pages.
type KnowledgeStore interface {
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error)
	AgentSourcePages(ctx context.Context, agentID string) ([]domain.SourcePage, error)
}

// Knowledge is an agent.Source that gives the knowledge-base agent and LLM
// retrieval an agent's knowledge together with its sources' pages, each
// page a document carrying its URL (domain.SourcePage.Entry), so pages
// answer like documents and can be cited.
//
// The pages are taken oldest source first, up to MaxChars characters of
// text in all. RunSync already keeps each source under that bound and
// notes what it left out; this is the last line, for two sources of one
// agent that synced at the same moment or a bound lowered since, so that
// no agent's index outgrows what the bound was chosen for.
type Knowledge struct {
	Store    KnowledgeStore
	MaxChars int // 0: DefaultMaxChars
}

func (k Knowledge) Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error) {
	return k.Store.Agent(ctx, accountID, agentID)
}

func (k Knowledge) Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error) {
	entries, err := k.Store.Knowledge(ctx, agentID)
	if err != nil {
		return nil, err
	}
	pages, err := k.Store.AgentSourcePages(ctx, agentID)
	if err != nil {
		return nil, err
	}
	room := k.MaxChars
	if room <= 0 {
		room = DefaultMaxChars
	}
	for _, p := range pages {
		n := utf8.RuneCountInString(p.Text)
		if n > room {
			continue
		}
		room -= n
		entries = append(entries, p.Entry())
	}
	return entries, nil
}
