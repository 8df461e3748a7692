package store

import (
	"context"
	"time"

	"parley/internal/domain"
)

// Feedback is the visitors' thumbs on the AI's answers (issue 20).
type Feedback interface {
	// SetFeedback records the visitor's thumbs on the AI message seq of
	// the conversation, replacing an earlier one (one per message,
	// changeable). In the same transaction the conversation's Helpful and
	// NotHelpful counts and its outcome follow, and a "Not helpful"
	// records the question the message answered (QuestionNotHelpful) while
	// "Helpful" removes that record again. It returns the conversation
	// after the write and whether anything changed (false: the message
	// already had that thumbs). domain.ErrNotFound when the conversation
	// holds no AI message with that seq.
	SetFeedback(ctx context.Context, conversationID string, seq int64, helpful bool) (domain.Conversation, bool, error)
}

// Insights is what the owner's reports read (issue 20, "AI outcomes").
// Every row of a conversation goes with it (retention, erasure).
//
// Each conversation's outcome is stored with it, worked out by
// domain.Conversation.Outcome whenever one of its inputs changes (a
// message, a handoff, a takeover, feedback), so a report groups by a
// column and never re-reads transcripts.
type Insights interface {
	// Report sums the account's conversations created in [f.From, f.To)
	// (of f.AgentID's alone when set): see Report.
	Report(ctx context.Context, accountID string, f ReportFilter) (Report, error)
	// Questions lists the questions the agent could not answer or
	// answered unhelpfully, recorded in [f.From, f.To) (of f.AgentID's
	// conversations alone when set), newest first, at most f.Limit
	// (clamped to 1..MaxQuestions). f.Open keeps only those no knowledge
	// entry answered yet.
	Questions(ctx context.Context, accountID string, f QuestionFilter) ([]Question, error)
	// ResolveQuestions marks the account's questions ids as answered by
	// the knowledge entry entryID (ids of another account are left
	// alone) and returns how many it marked.
	ResolveQuestions(ctx context.Context, accountID string, ids []int64, entryID string) (int, error)
	// OperatorAnswers lists the operators' first replies to visitors'
	// questions in the account's conversations created in [f.From, f.To)
	// (of f.AgentID's alone when set): at most f.Limit (clamped to
	// 1..MaxQuestions), taken from the newest conversations first, listed
	// newest reply first; f.Open is ignored. See OperatorAnswer.
	OperatorAnswers(ctx context.Context, accountID string, f QuestionFilter) ([]OperatorAnswer, error)
}

// MaxQuestions bounds one read of Questions or OperatorAnswers.
const MaxQuestions = 5000

// ReportFilter selects the conversations a report sums: those created in
// [From, To), of AgentID's alone when it is not "".
type ReportFilter struct {
	AgentID  string
	From, To time.Time
}

// Report is what the insights page and GET /api/v1/insights show of a
// period.
type Report struct {
	// Days holds one row per UTC day from the one holding From up to the
	// last one starting before To (store.Days), days without
	// conversations included.
	Days []DayOutcomes
	// Hours counts the conversations started in each hour of the UTC day
	// (Hours[0]: 00:00-00:59).
	Hours [24]int
	// FirstResponses are domain.Conversation.FirstResponse of every
	// conversation of the period that has one, shortest first.
	FirstResponses []time.Duration
	// Ratings are the visitors' ratings (CSAT) of the period's
	// conversations.
	Ratings RatingStats
}

// DayOutcomes counts one UTC day's new conversations by outcome, and the
// thumbs given on their AI answers.
type DayOutcomes struct {
	Day                                        time.Time // 00:00 UTC
	Conversations                              int
	Resolved, HandedOff, Unanswered, Abandoned int
	Helpful, NotHelpful                        int
}

// Plus adds the counts of o to d's.
func (d *DayOutcomes) Plus(o DayOutcomes) {
	d.Conversations += o.Conversations
	d.Resolved += o.Resolved
	d.HandedOff += o.HandedOff
	d.Unanswered += o.Unanswered
	d.Abandoned += o.Abandoned
	d.Helpful += o.Helpful
	d.NotHelpful += o.NotHelpful
}

// AddOutcome counts n conversations of outcome o, with helpful and
// notHelpful thumbs between them, in d.
func (d *DayOutcomes) AddOutcome(o domain.Outcome, n, helpful, notHelpful int) {
	d.Conversations += n
	switch o {
	case domain.OutcomeResolved:
		d.Resolved += n
	case domain.OutcomeHandedOff:
		d.HandedOff += n
	case domain.OutcomeUnanswered:
		d.Unanswered += n
	case domain.OutcomeAbandoned:
		d.Abandoned += n
	}
	d.Helpful += helpful
	d.NotHelpful += notHelpful
}

// QuestionFilter selects recorded questions (Questions) or operators'
// answers (OperatorAnswers).
type QuestionFilter struct {
	AgentID  string
	From, To time.Time
	Limit    int
	Open     bool
}

// QuestionReason is why a question was recorded.
type QuestionReason string

const (
	// QuestionUnanswered: the agent's reply to it could not answer
	// (agent.Reply.Unanswered: "I don't know", a "did you mean").
	QuestionUnanswered QuestionReason = "unanswered"
	// QuestionNotHelpful: the visitor marked the agent's answer to it
	// "Not helpful".
	QuestionNotHelpful QuestionReason = "not_helpful"
)

// Question is a visitor's question the agent could not answer, or
// answered with a thumbs-down: recorded with an unanswered AI reply
// (NewMessage.Question) or by SetFeedback.
type Question struct {
	ID             int64
	AgentID        string
	ConversationID string
	// Seq is the AI reply's seq: operators' replies after it are the
	// answers a person gave (MessagesAfter).
	Seq    int64
	Text   string // the visitor's message the reply answered
	Lang   string // the widget's language when known (NewMessage.Lang), else ""
	Reason QuestionReason
	At     time.Time
	// EntryID is the knowledge entry that answers it now
	// (ResolveQuestions), "" while open.
	EntryID string
}

// OperatorAnswer is an operator's first reply to a visitor's question: an
// operator message and the newest visitor message before it, with no
// other operator message between them.
type OperatorAnswer struct {
	AgentID        string
	ConversationID string
	Question       string // the visitor's message
	Answer         string // the operator's reply
	OperatorName   string
	At             time.Time // the reply's
}
