package agentadmin

import (
	"context"

	"parley/internal/audit"
	"parley/internal/domain"
)

// Knowledge is the agent's knowledge, in insertion order; another
// account's agent is domain.ErrNotFound.
func (s *Service) Knowledge(ctx context.Context, accountID, agentID string) ([]domain.KnowledgeEntry, error) {
	ag, err := s.o.Store.Agent(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	return s.o.Store.Knowledge(ctx, ag.ID)
}

// KnowledgeItem is one item of one of the account's agents.
func (s *Service) KnowledgeItem(ctx context.Context, accountID, agentID, itemID string) (domain.KnowledgeEntry, error) {
	entries, err := s.Knowledge(ctx, accountID, agentID)
	if err != nil {
		return domain.KnowledgeEntry{}, err
	}
	for _, e := range entries {
		if e.ID == itemID {
			return e, nil
		}
	}
	return domain.KnowledgeEntry{}, domain.ErrNotFound
}

// AddKnowledge checks an item (domain.CheckKnowledge: a
// *domain.KnowledgeError) and appends it within the agent's bounds (a
// *domain.KnowledgeLimitError past them). It returns the item as stored,
// with its id.
func (s *Service) AddKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry) (domain.KnowledgeEntry, error) {
	e, err := domain.CheckKnowledge(e)
	if err != nil {
		return domain.KnowledgeEntry{}, err
	}
	if e, err = s.o.Store.AddKnowledge(ctx, accountID, agentID, e, s.o.Bounds.Knowledge); err != nil {
		return domain.KnowledgeEntry{}, err
	}
	s.o.Invalidate(agentID)
	s.o.Audit.Record(ctx, accountID, audit.KnowledgeCreate, audit.Target("knowledge", e.ID))
	return e, nil
}

// KnowledgePatch changes the fields that are set; an item's kind stays.
type KnowledgePatch struct {
	Question, Answer, Title, Text, Lang *string
}

// Apply returns e with the patch's fields in it, unchecked: what the
// owner asked for (a form shows it again when it is refused).
func (p KnowledgePatch) Apply(e domain.KnowledgeEntry) domain.KnowledgeEntry {
	set(&e.Question, p.Question)
	set(&e.Answer, p.Answer)
	set(&e.Title, p.Title)
	set(&e.Text, p.Text)
	set(&e.Lang, p.Lang)
	return e
}

func set(dst, src *string) {
	if src != nil {
		*dst = *src
	}
}

// UpdateKnowledge applies a patch to an item, checks the result as
// AddKnowledge does and saves it within the bounds.
func (s *Service) UpdateKnowledge(ctx context.Context, accountID, agentID, itemID string, p KnowledgePatch) (domain.KnowledgeEntry, error) {
	old, err := s.KnowledgeItem(ctx, accountID, agentID, itemID)
	if err != nil {
		return domain.KnowledgeEntry{}, err
	}
	e, err := domain.CheckKnowledge(p.Apply(old))
	if err != nil {
		return domain.KnowledgeEntry{}, err
	}
	e.ID = itemID
	if e, err = s.o.Store.UpdateKnowledge(ctx, accountID, agentID, e, s.o.Bounds.Knowledge); err != nil {
		return domain.KnowledgeEntry{}, err
	}
	s.o.Invalidate(agentID)
	s.o.Audit.Record(ctx, accountID, audit.KnowledgeUpdate, audit.Target("knowledge", itemID))
	return e, nil
}

// DeleteKnowledge removes an item; a missing one is domain.ErrNotFound.
func (s *Service) DeleteKnowledge(ctx context.Context, accountID, agentID, itemID string) error {
	if err := s.o.Store.DeleteKnowledge(ctx, accountID, agentID, itemID); err != nil {
		return err
	}
	s.o.Invalidate(agentID)
	s.o.Audit.Record(ctx, accountID, audit.KnowledgeDelete, audit.Target("knowledge", itemID))
	return nil
}
