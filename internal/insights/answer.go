package insights

import (
	"context"
	"strings"
	"time"

	"parley/internal/domain"
)

// Reply is an operator's reply to one of a gap's questions, which the
// owner may take as the gap's answer.
type Reply struct {
	Text           string
	OperatorName   string
	ConversationID string
	At             time.Time
}

// maxReplies bounds the replies a gap offers (one per conversation, the
// newest conversations first).
const maxReplies = 5

// Gap is the open gap id with the operators' replies to its questions:
// what "Answer this" shows. See openGap for its errors.
func (s *Service) Gap(ctx context.Context, accountID, id string) (Gap, []Reply, error) {
	g, err := s.openGap(ctx, accountID, id)
	if err != nil {
		return Gap{}, nil, err
	}
	var replies []Reply
	seen := map[string]bool{}
	for _, q := range g.members {
		if len(replies) == maxReplies {
			break
		}
		if seen[q.ConversationID] {
			continue
		}
		seen[q.ConversationID] = true
		msgs, err := s.store.MessagesAfter(ctx, q.ConversationID, domain.RoleOperator, q.Seq, 1)
		if err != nil {
			return Gap{}, nil, err
		}
		if len(msgs) == 1 && !containsText(replies, msgs[0].Text) {
			m := msgs[0]
			replies = append(replies, Reply{Text: m.Text, OperatorName: m.OperatorName, ConversationID: m.ConversationID, At: m.CreatedAt})
		}
	}
	return g, replies, nil
}

func containsText(rs []Reply, text string) bool {
	for _, r := range rs {
		if r.Text == text {
			return true
		}
	}
	return false
}

// AnswerInput is the owner's answer to a gap. Question, when set, is the
// question the knowledge entry is filed under; "" keeps the gap's.
type AnswerInput struct {
	Answer   string
	Question string
}

// Answer turns the open gap id into knowledge: a Q&A entry of the gap's
// agent (through the agents' service, with its checks and bounds: a
// *domain.KnowledgeError or *domain.KnowledgeLimitError refuses it),
// and marks every question of the gap answered by it. The entry has no
// language, so it answers in every one: the widget's language a question
// was recorded with is not always the language the agent searches in (it
// reads the text: a Romanian question in an English widget is searched
// in Romanian), and an entry tagged with the wrong one would never be
// found. The owner may tag it on the agent's page. From then on the agent answers the question
// (the entry is in its index) and the gap shows as resolved. It returns
// the entry and the gap as resolved.
func (s *Service) Answer(ctx context.Context, accountID, id string, in AnswerInput) (domain.KnowledgeEntry, Gap, error) {
	answer, question := strings.TrimSpace(in.Answer), strings.TrimSpace(in.Question)
	if answer == "" {
		return domain.KnowledgeEntry{}, Gap{}, domain.Invalid("answer is required")
	}
	g, err := s.openGap(ctx, accountID, id)
	if err != nil {
		return domain.KnowledgeEntry{}, Gap{}, err
	}
	if question == "" {
		question = g.Question
	}
	e, err := s.agents.AddKnowledge(ctx, accountID, g.AgentID, domain.KnowledgeEntry{Kind: domain.KindQA, Question: question, Answer: answer})
	if err != nil {
		return domain.KnowledgeEntry{}, Gap{}, err
	}
	ids := make([]int64, len(g.members))
	for i, q := range g.members {
		ids[i] = q.ID
	}
	if _, err := s.store.ResolveQuestions(ctx, accountID, ids, e.ID); err != nil {
		return domain.KnowledgeEntry{}, Gap{}, err
	}
	g.Resolved, g.EntryID = true, e.ID
	return e, g, nil
}
