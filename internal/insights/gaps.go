package insights

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"parley/internal/domain"
	"parley/internal/questions"
	"parley/internal/store"
)

// Gap is one question the agent could not answer, or answered with a
// thumbs-down, however many ways visitors put it: the questions that
// questions.GroupAll joins, of one agent.
type Gap struct {
	// ID is "gap_" and the id of the group's oldest question: the same
	// while the group lasts, since a question's group only grows.
	ID       string
	AgentID  string
	Question string // the question that best stands for the group
	Lang     string // the language all its questions were asked in, "" when not one
	Count    int
	// Unanswered and NotHelpful split Count by why each was recorded.
	Unanswered, NotHelpful int
	LastAt                 time.Time
	Examples               []Example // the newest first, at most MaxExamples
	// Resolved: a knowledge entry (EntryID) answers it now.
	Resolved bool
	EntryID  string

	members []store.Question
}

// Example is one way a visitor asked a gap's question.
type Example struct {
	Text           string
	ConversationID string
	At             time.Time
	Reason         store.QuestionReason
}

// MaxExamples is how many examples a gap shows.
const MaxExamples = 5

// Gaps are the knowledge gaps of p: the open ones first, most asked
// first (the latest asked first on a tie), then the ones a knowledge entry
// answers now, shown as resolved. Questions are grouped within one agent:
// each agent has its own knowledge.
func (s *Service) Gaps(ctx context.Context, accountID string, p Period) ([]Gap, error) {
	if err := s.checkAgent(ctx, accountID, p.AgentID); err != nil {
		return nil, err
	}
	qs, err := s.store.Questions(ctx, accountID, store.QuestionFilter{AgentID: p.AgentID, From: p.From, To: p.To, Limit: store.MaxQuestions})
	if err != nil {
		return nil, err
	}
	var open, resolved []store.Question
	for _, q := range qs {
		if q.EntryID == "" {
			open = append(open, q)
		} else {
			resolved = append(resolved, q)
		}
	}
	gaps := groupOpen(open)
	rank(gaps)
	done := groupResolved(resolved)
	rank(done)
	return append(gaps, done...), nil
}

// groupOpen groups open questions by meaning, within each agent.
func groupOpen(qs []store.Question) []Gap {
	var gaps []Gap
	for _, agentQs := range byAgent(qs) {
		items := make([]questions.Item, len(agentQs))
		for i, q := range agentQs {
			items[i] = questions.Item{Text: q.Text, Lang: q.Lang}
		}
		for _, g := range questions.GroupAll(items) {
			members := make([]store.Question, len(g.Members))
			for i, m := range g.Members {
				members[i] = agentQs[m]
			}
			gaps = append(gaps, newGap(members, agentQs[g.Representative].Text))
		}
	}
	return gaps
}

// groupResolved groups answered questions by the entry that answers them.
func groupResolved(qs []store.Question) []Gap {
	byEntry := map[string][]store.Question{}
	var order []string
	for _, q := range qs {
		if byEntry[q.EntryID] == nil {
			order = append(order, q.EntryID)
		}
		byEntry[q.EntryID] = append(byEntry[q.EntryID], q)
	}
	var gaps []Gap
	for _, id := range order {
		members := byEntry[id]
		g := newGap(members, members[len(members)-1].Text) // the oldest one asked
		g.Resolved, g.EntryID = true, id
		gaps = append(gaps, g)
	}
	return gaps
}

// byAgent splits questions by agent, each agent's in the order given.
func byAgent(qs []store.Question) [][]store.Question {
	idx := map[string]int{}
	var out [][]store.Question
	for _, q := range qs {
		i, ok := idx[q.AgentID]
		if !ok {
			i = len(out)
			idx[q.AgentID] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], q)
	}
	return out
}

// newGap makes the gap of members (any order), standing for question.
func newGap(members []store.Question, question string) Gap {
	members = slices.Clone(members)
	// Newest first: the examples, and LastAt, come from the front.
	slices.SortFunc(members, func(a, b store.Question) int { return b.At.Compare(a.At) })
	g := Gap{AgentID: members[0].AgentID, Question: question, Count: len(members), LastAt: members[0].At, members: members}
	oldest := members[0].ID
	lang, oneLang := members[0].Lang, true
	for _, q := range members {
		oldest = min(oldest, q.ID)
		if q.Lang != lang {
			oneLang = false
		}
		switch q.Reason {
		case store.QuestionNotHelpful:
			g.NotHelpful++
		default:
			g.Unanswered++
		}
		if len(g.Examples) < MaxExamples {
			g.Examples = append(g.Examples, Example{Text: q.Text, ConversationID: q.ConversationID, At: q.At, Reason: q.Reason})
		}
	}
	if oneLang {
		g.Lang = lang
	}
	g.ID = gapPrefix + strconv.FormatInt(oldest, 10)
	return g
}

const gapPrefix = "gap_"

// rank orders gaps most asked first, then the latest asked first.
func rank(gaps []Gap) {
	slices.SortStableFunc(gaps, func(a, b Gap) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return b.LastAt.Compare(a.LastAt)
	})
}

// parseGapID reads a gap's id; domain.ErrNotFound for anything else.
func parseGapID(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, gapPrefix), 10, 64)
	if !strings.HasPrefix(id, gapPrefix) || err != nil || n <= 0 {
		return 0, domain.ErrNotFound
	}
	return n, nil
}

// openGap finds the open gap with id among all the account's open
// questions (not only one period's: the group can only have grown since
// it was listed). A gap whose question is answered already is
// domain.ErrConflict; one that never was, or is another account's,
// domain.ErrNotFound.
func (s *Service) openGap(ctx context.Context, accountID, id string) (Gap, error) {
	qid, err := parseGapID(id)
	if err != nil {
		return Gap{}, err
	}
	all, err := s.store.Questions(ctx, accountID, store.QuestionFilter{From: time.Unix(0, 0), To: s.now().Add(24 * time.Hour), Limit: store.MaxQuestions})
	if err != nil {
		return Gap{}, err
	}
	i := slices.IndexFunc(all, func(q store.Question) bool { return q.ID == qid })
	if i < 0 {
		return Gap{}, domain.ErrNotFound
	}
	if all[i].EntryID != "" {
		return Gap{}, domain.ErrConflict
	}
	agentID := all[i].AgentID
	open := slices.DeleteFunc(all, func(q store.Question) bool { return q.EntryID != "" || q.AgentID != agentID })
	for _, g := range groupOpen(open) {
		if slices.ContainsFunc(g.members, func(q store.Question) bool { return q.ID == qid }) {
			return g, nil
		}
	}
	return Gap{}, domain.ErrNotFound // not reached: every question is in a group
}
