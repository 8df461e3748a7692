// Package domain holds Parley's core types, the rules that belong to a
// value itself (a knowledge item's checks, an agent config's Validate) and
// the errors that cross package boundaries. Of Parley it imports only the
// language list (web/i18n, which imports only the standard library), so
// every other package can depend on it.
package domain

import "time"

// Mode is who answers a conversation: the AI agent or a human operator.
type Mode string

const (
	ModeAI    Mode = "ai"
	ModeHuman Mode = "human"
)

// Role is who wrote a message.
type Role string

const (
	RoleVisitor  Role = "visitor"
	RoleAI       Role = "ai"
	RoleOperator Role = "operator"
)

// Limits are an account's billing limits. Overage is on when
// OveragePriceCents > 0; SpendCapCents bounds the overage cost per period.
type Limits struct {
	MonthlyConversations int   `json:"monthly_conversations"`
	OveragePriceCents    int64 `json:"overage_price_cents"`
	SpendCapCents        int64 `json:"spend_cap_cents"`
}

// DefaultLimits are a new account's limits: 100 conversations a month,
// overage off.
var DefaultLimits = Limits{MonthlyConversations: 100}

// Account is a customer of the instance: it owns agents and conversations.
type Account struct {
	ID           string
	Email        string
	Name         string
	PasswordHash string
	Limits       Limits
	CreatedAt    time.Time
}

// Agent is a chatbot an account configures. Config is decoded once, when
// the agent is loaded; its private members are never shown to visitors
// (AgentConfig.Public).
type Agent struct {
	ID          string
	AccountID   string
	ChatbotName string
	Config      AgentConfig
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Knowledge kinds.
const (
	KindQA       = "qa"       // a question and its answer
	KindDocument = "document" // a text (plain or Markdown) split into passages
)

// KnowledgeEntry is one item the agent answers from: a question with its
// answer, or a document. Lang is empty when the item fits every language.
type KnowledgeEntry struct {
	ID       string `json:"id,omitempty"`
	Kind     string `json:"kind,omitempty"`     // KindQA ("" means KindQA) or KindDocument
	Question string `json:"question,omitempty"` // KindQA
	Answer   string `json:"answer,omitempty"`   // KindQA
	Title    string `json:"title,omitempty"`    // KindDocument
	Text     string `json:"text,omitempty"`     // KindDocument: plain text or Markdown
	Lang     string `json:"lang,omitempty"`
	// URL is set only on pages of a website source (domain.SourcePage as
	// an entry for the index), never by owners: the answer cites it.
	URL string `json:"-"`
}

// IsDocument reports whether the entry is a document rather than a Q&A pair.
func (e KnowledgeEntry) IsDocument() bool { return e.Kind == KindDocument }

// WidgetKey is the public identifier ("wk_...") that selects an agent.
type WidgetKey struct {
	Key       string
	AgentID   string
	AccountID string
	Active    bool
	CreatedAt time.Time
}

// Conversation is one chat session started by init.
type Conversation struct {
	ID            string
	AgentID       string
	AccountID     string
	VisitorID     string
	PageURL       string
	Mode          Mode
	CreatedAt     time.Time
	LastMessageAt time.Time // zero until the first message
	LastMessage   string    // text of the newest message, "" when none
	// LastActivityAt is when the conversation last moved, as the desk's
	// inbox orders it: its start, or its newest visitor, AI or operator
	// message, whichever is later. Private notes, status, mode and
	// assignment changes are not activity (docs/dashboard.md).
	LastActivityAt time.Time
	// Waiting: the visitor asked for a human (or the agent missed twice)
	// and no operator has taken over yet. The mode stays ModeAI meanwhile.
	Waiting bool
	Misses  int // consecutive AI replies that could not answer
	// WaitingSince is when the current wait for a human began; zero while
	// the conversation does not wait. Messages while it waits (the
	// visitor writing again) do not move it.
	WaitingSince time.Time
	// The operator handling the conversation while ModeHuman: a dashboard
	// user's id and name, or empty when taken over through the API.
	AssigneeID   string
	AssigneeName string
	// Who the visitor said they are at init (identity verification):
	// UserID is set only when verified (Verified true); Name and Email as
	// the page gave them, verified or not.
	UserID   string
	Name     string
	Email    string
	Verified bool
	// Status is open or resolved (the operator desk, issue 19); a new
	// visitor message reopens a resolved conversation.
	Status Status
	// What happened in the conversation, for its Outcome (issue 20):
	// Asked once a visitor message is stored, Answered once an AI reply
	// that answered is; HandedAt when a person was first asked for or
	// took over (zero: never), FirstOperatorAt when an operator first
	// wrote (zero: never); Helpful and NotHelpful count the visitor's
	// thumbs on the AI's answers as they stand now.
	Asked, Answered     bool
	HandedAt            time.Time
	FirstOperatorAt     time.Time
	Helpful, NotHelpful int
}

// Status is a conversation's place in the desk's work: open until an
// operator resolves it.
type Status string

const (
	StatusOpen     Status = "open"
	StatusResolved Status = "resolved"
)

// UsageThreshold is one usage threshold a new conversation took its
// account across first in its billing period (store.NewConversation's
// Crossed): the data of the usage.threshold event. Usage and Limits are
// as they were just after that conversation was admitted.
type UsageThreshold struct {
	Threshold string // quota.ThresholdAllowance80, ...Allowance100, ...SpendCap
	Usage     Usage
	Limits    Limits
}

// Message is one stored message. Seq orders the messages of the whole
// instance: later messages have larger Seq, which makes it a stable cursor.
type Message struct {
	Seq            int64
	ConversationID string
	Role           Role
	Text           string
	OperatorName   string // set for RoleOperator
	CreatedAt      time.Time
	// Tokens is what an AI reply from an LLM cost; zero for every other
	// message (the built-in knowledge-base agent uses no tokens).
	Tokens Tokens
	// Helpful is the visitor's thumbs on an AI answer (issue 20): nil
	// when they gave none, else true (up) or false (down).
	Helpful *bool
}

// Tokens are LLM tokens as the backend counted them: those of the prompt
// sent and those of the completion it answered with.
type Tokens struct {
	Prompt     int64
	Completion int64
}

// Add is t and u together.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{Prompt: t.Prompt + u.Prompt, Completion: t.Completion + u.Completion}
}

// IsZero reports whether no token was counted.
func (t Tokens) IsZero() bool { return t == Tokens{} }

// Usage is an account's consumption in one billing period (a UTC month,
// named "2006-01").
type Usage struct {
	Period               string
	Conversations        int   // all conversations created, overage included
	OverageConversations int   // those beyond the allowance
	OverageCents         int64 // what the overage conversations cost
	// Tokens are the LLM tokens of the AI replies stored in the period (by
	// the reply's time, not the conversation's).
	Tokens Tokens
}

// APIToken authenticates an account on the management API. Only the hash of
// the token is stored.
type APIToken struct {
	ID        string
	AccountID string
	Name      string
	CreatedAt time.Time
}

// Roles of the people who sign in to the dashboard. Owners manage agents,
// keys, billing and the team; operators answer conversations.
type UserRole string

const (
	UserOwner    UserRole = "owner"
	UserOperator UserRole = "operator"
)

// User is a person who signs in to an account's dashboard.
type User struct {
	ID           string
	AccountID    string
	Email        string
	Name         string
	PasswordHash string
	Role         UserRole
	CreatedAt    time.Time
}

// IsOwner reports whether the user may change agents, keys, billing and the team.
func (u User) IsOwner() bool { return u.Role == UserOwner }

// DayCount is the number of conversations started on one UTC day.
type DayCount struct {
	Day   time.Time // midnight UTC
	Count int
}
