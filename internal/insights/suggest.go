package insights

import (
	"context"
	"slices"
	"time"

	"parley/internal/domain"
	"parley/internal/handoff"
	"parley/internal/questions"
	"parley/internal/store"
)

// Suggestion is a Q&A entry the operators' replies suggest: visitors
// asked the same question (questions.GroupAll) in MinSuggested
// conversations or more, and operators answered it each time. The owner
// accepts it as it is or edited (a knowledge entry of AgentID).
type Suggestion struct {
	AgentID  string
	Question string // the question that best stands for the group
	Answer   string // the newest reply: the team's latest word
	// Answers are the replies it was built from, newest first, one per
	// conversation, at most MaxExamples: the owner may take another.
	Answers       []Reply
	Conversations int // in how many conversations it was asked and answered
	LastAt        time.Time
}

// MinSuggested is how many conversations a question must have been
// answered in by operators before it is suggested: "several times" — once
// may be a one-off, twice in different conversations is a pattern.
const MinSuggested = 2

// Suggestions are the entries p's operators' replies suggest, most asked
// first. A question the agent's knowledge already holds (a Q&A entry
// whose question questions.Same finds the same) is not suggested: an
// accepted suggestion leaves the list.
func (s *Service) Suggestions(ctx context.Context, accountID string, p Period) ([]Suggestion, error) {
	if err := s.checkAgent(ctx, accountID, p.AgentID); err != nil {
		return nil, err
	}
	answers, err := s.store.OperatorAnswers(ctx, accountID, store.QuestionFilter{AgentID: p.AgentID, From: p.From, To: p.To, Limit: store.MaxQuestions})
	if err != nil {
		return nil, err
	}
	byAgent := map[string][]store.OperatorAnswer{}
	var agents []string
	for _, a := range answers {
		if handoff.AsksForHuman(a.Question) {
			continue // "Talk to a human" and its like are no question to answer
		}
		if byAgent[a.AgentID] == nil {
			agents = append(agents, a.AgentID)
		}
		byAgent[a.AgentID] = append(byAgent[a.AgentID], a)
	}
	var out []Suggestion
	for _, agentID := range agents {
		known, err := s.knownQuestions(ctx, accountID, agentID)
		if err != nil {
			return nil, err
		}
		out = append(out, suggest(agentID, byAgent[agentID], known)...)
	}
	slices.SortStableFunc(out, func(a, b Suggestion) int {
		if a.Conversations != b.Conversations {
			return b.Conversations - a.Conversations
		}
		return b.LastAt.Compare(a.LastAt)
	})
	return out, nil
}

// knownQuestions are the questions of the agent's Q&A entries.
func (s *Service) knownQuestions(ctx context.Context, accountID, agentID string) ([]questions.Item, error) {
	entries, err := s.agents.Knowledge(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	var known []questions.Item
	for _, e := range entries {
		if !e.IsDocument() && e.Question != "" {
			known = append(known, questions.Item{Text: e.Question, Lang: e.Lang})
		}
	}
	return known, nil
}

// suggest groups one agent's answered questions (newest first) and keeps
// the groups asked in MinSuggested conversations or more that known does
// not hold.
func suggest(agentID string, answers []store.OperatorAnswer, known []questions.Item) []Suggestion {
	items := make([]questions.Item, len(answers))
	for i, a := range answers {
		items[i] = questions.Item{Text: a.Question}
	}
	var out []Suggestion
	for _, g := range questions.GroupAll(items) {
		rep := items[g.Representative]
		if slices.ContainsFunc(known, func(k questions.Item) bool { return questions.Same(rep, k) }) {
			continue
		}
		sg := Suggestion{AgentID: agentID, Question: rep.Text}
		seen := map[string]bool{}
		for _, m := range g.Members { // ascending: newest first
			a := answers[m]
			if seen[a.ConversationID] {
				continue
			}
			seen[a.ConversationID] = true
			sg.Conversations++
			if len(sg.Answers) < MaxExamples {
				sg.Answers = append(sg.Answers, Reply{Text: a.Answer, OperatorName: a.OperatorName, ConversationID: a.ConversationID, At: a.At})
			}
		}
		if sg.Conversations < MinSuggested {
			continue
		}
		sg.Answer, sg.LastAt = sg.Answers[0].Text, sg.Answers[0].At
		out = append(out, sg)
	}
	return out
}

// Accept adds a suggestion, as the owner left it, to the agent's knowledge
// (through the agents' service and its rules).
func (s *Service) Accept(ctx context.Context, accountID, agentID, question, answer string) (domain.KnowledgeEntry, error) {
	return s.agents.AddKnowledge(ctx, accountID, agentID, domain.KnowledgeEntry{Kind: domain.KindQA, Question: question, Answer: answer})
}
