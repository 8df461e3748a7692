package agentadmin

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/store"
)

// MaxName is the most characters (code points) a chatbot name may have.
const MaxName = 100

// CheckName applies the name rule: trimmed, 1 to MaxName characters. It
// returns the trimmed name, or ErrName. The Service applies it to every
// name it saves; a form may call it first to report the name before its
// other fields.
func CheckName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || utf8.RuneCountInString(n) > MaxName {
		return "", ErrName
	}
	return n, nil
}

// NewAgent is an agent to create.
type NewAgent struct {
	Name      string
	Config    json.RawMessage         // nil: {}
	Knowledge []domain.KnowledgeEntry // each checked by domain.CheckKnowledge
	// KeepSecrets, when set, derives the config to store from Config and
	// the stored one (zero on creation): the management API, which never
	// shows the LLM API key, carries it over (manageapi's keepAPIKey).
	KeepSecrets KeepSecrets
}

// KeepSecrets derives the config to store from a checked config (which it
// may change, e.g. to carry over a secret) and the stored one, and
// returns its JSON.
type KeepSecrets func(next *domain.AgentConfig, prev domain.AgentConfig) json.RawMessage

// AgentChange is a change to an agent; nil fields stay as they are.
type AgentChange struct {
	Name      *string
	Config    json.RawMessage          // replaces the config
	Knowledge *[]domain.KnowledgeEntry // replaces all the knowledge
	// KeepSecrets as in NewAgent, given the stored config.
	KeepSecrets KeepSecrets
}

// CreateAgent creates an agent of the account with its first widget key,
// if the account may have another agent (Bounds.MaxAgents: a
// *domain.AgentLimitError) and the knowledge fits the bounds.
func (s *Service) CreateAgent(ctx context.Context, accountID string, in NewAgent) (domain.Agent, error) {
	name, err := CheckName(in.Name)
	if err != nil {
		return domain.Agent{}, err
	}
	var cfg domain.AgentConfig
	if in.Config != nil {
		if cfg, err = checkConfig(in.Config); err != nil {
			return domain.Agent{}, err
		}
	}
	kb, err := checkAll(in.Knowledge)
	if err != nil {
		return domain.Agent{}, err
	}
	var config json.RawMessage // nil: the store's {}
	if in.Config != nil {
		if config, err = s.finishConfig(ctx, cfg, domain.AgentConfig{}, in.KeepSecrets); err != nil {
			return domain.Agent{}, err
		}
	}
	ag, err := s.o.Store.CreateAgent(ctx, store.NewAgent{
		AccountID: accountID, ChatbotName: name, Config: config, Knowledge: kb, Key: s.o.NewKey(),
		KnowledgeLimits: s.o.Bounds.Knowledge, MaxAgents: s.o.Bounds.MaxAgents,
	})
	if err != nil {
		return domain.Agent{}, err
	}
	s.o.Audit.Record(ctx, accountID, audit.AgentCreate, audit.Target("agent", ag.ID))
	return ag, nil
}

// UpdateAgent applies a change. Every update bumps the agent's version,
// which its knowledge index is cached under, so the cache is told.
func (s *Service) UpdateAgent(ctx context.Context, accountID, agentID string, c AgentChange) (domain.Agent, error) {
	p := store.AgentPatch{KnowledgeLimits: s.o.Bounds.Knowledge}
	if c.Name != nil {
		name, err := CheckName(*c.Name)
		if err != nil {
			return domain.Agent{}, err
		}
		p.ChatbotName = &name
	}
	// The rules that need nothing stored come first, so a bad request is
	// a 400 whether or not the agent exists.
	var cfg domain.AgentConfig
	if c.Config != nil {
		var err error
		if cfg, err = checkConfig(c.Config); err != nil {
			return domain.Agent{}, err
		}
	}
	if c.Knowledge != nil {
		kb, err := checkAll(*c.Knowledge)
		if err != nil {
			return domain.Agent{}, err
		}
		p.Knowledge = &kb
	}
	if c.Config != nil {
		prev, err := s.o.Store.Agent(ctx, accountID, agentID)
		if err != nil {
			return domain.Agent{}, err
		}
		if p.Config, err = s.finishConfig(ctx, cfg, prev.Config, c.KeepSecrets); err != nil {
			return domain.Agent{}, err
		}
	}
	ag, err := s.o.Store.UpdateAgent(ctx, accountID, agentID, p)
	if err != nil {
		return domain.Agent{}, err
	}
	s.o.Invalidate(ag.ID)
	s.o.Audit.Record(ctx, accountID, audit.AgentUpdate, audit.Target("agent", ag.ID))
	return ag, nil
}

// Agent is one of the account's agents; another account's is
// domain.ErrNotFound, like a missing one.
func (s *Service) Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error) {
	return s.o.Store.Agent(ctx, accountID, agentID)
}

// Agents are the account's agents, oldest first.
func (s *Service) Agents(ctx context.Context, accountID string) ([]domain.Agent, error) {
	return s.o.Store.Agents(ctx, accountID)
}

// checkAll checks and normalises knowledge items (domain.CheckKnowledge).
func checkAll(entries []domain.KnowledgeEntry) ([]domain.KnowledgeEntry, error) {
	if entries == nil {
		return nil, nil
	}
	out := make([]domain.KnowledgeEntry, len(entries))
	for i, e := range entries {
		e, err := domain.CheckKnowledge(e)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}
