package domain

import (
	"fmt"
	"unicode/utf8"
)

// KnowledgeLimits bound one agent's knowledge: how many items it may have
// and how many characters all of them may hold together (the instance's
// PARLEY_KNOWLEDGE_MAX_ITEMS and PARLEY_KNOWLEDGE_MAX_CHARS). They keep an
// agent's index quick to build and small in memory. Zero means no bound.
type KnowledgeLimits struct {
	MaxItems int
	MaxChars int
}

// Default bounds: an agent's index then builds in well under a second
// (docs/agent.md).
const (
	DefaultKnowledgeMaxItems   = 2000
	DefaultKnowledgeMaxChars   = 1_000_000
	DefaultMaxAgentsPerAccount = 50
)

// KnowledgeChars is what an item counts against MaxChars: the characters
// (code points) of its question, answer, title and text.
func KnowledgeChars(e KnowledgeEntry) int {
	return utf8.RuneCountInString(e.Question) + utf8.RuneCountInString(e.Answer) +
		utf8.RuneCountInString(e.Title) + utf8.RuneCountInString(e.Text)
}

// KnowledgeSize is an agent's knowledge as the bounds count it.
type KnowledgeSize struct{ Items, Chars int }

// SizeOf counts entries.
func SizeOf(entries []KnowledgeEntry) KnowledgeSize {
	s := KnowledgeSize{Items: len(entries)}
	for _, e := range entries {
		s.Chars += KnowledgeChars(e)
	}
	return s
}

// Check decides a change of an agent's knowledge from size was to size
// will be. It refuses growth past a bound, never a change that shrinks or
// keeps the size: an agent over its bounds (after they were lowered) can
// still be edited down. The error is a *KnowledgeLimitError.
func (l KnowledgeLimits) Check(was, will KnowledgeSize) error {
	switch {
	case l.MaxItems > 0 && will.Items > l.MaxItems && will.Items > was.Items:
		return &KnowledgeLimitError{Problem: KnowledgeTooMany, Max: l.MaxItems, Would: will.Items,
			Msg: fmt.Sprintf("an agent's knowledge is limited to %d items; delete some before adding more", l.MaxItems)}
	case l.MaxChars > 0 && will.Chars > l.MaxChars && will.Chars > was.Chars:
		return &KnowledgeLimitError{Problem: KnowledgeTooLarge, Max: l.MaxChars, Would: will.Chars,
			Msg: fmt.Sprintf("an agent's knowledge is limited to %d characters in all (questions, answers, titles and texts); this change would make it %d", l.MaxChars, will.Chars)}
	}
	return nil
}

// KnowledgeLimitError is a change that would take an agent's knowledge past
// its bounds: a 413 with Msg. Problem (KnowledgeTooMany or
// KnowledgeTooLarge) is for translation.
type KnowledgeLimitError struct {
	Problem    KnowledgeProblem
	Max, Would int
	Msg        string
}

func (e *KnowledgeLimitError) Error() string { return e.Msg }

// AgentLimitError is an agent the account may not have: it has Max
// already (PARLEY_MAX_AGENTS_PER_ACCOUNT). A 403.
type AgentLimitError struct{ Max int }

func (e *AgentLimitError) Error() string {
	return fmt.Sprintf("an account may have %d agents at most on this instance, and this one has reached that limit", e.Max)
}

// Bounds are an instance's limits on what an account holds, applied alike
// by the management API and the dashboard. Zero values: no bound.
type Bounds struct {
	Knowledge KnowledgeLimits
	MaxAgents int // per account
}
