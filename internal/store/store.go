// Package store defines what Parley needs from its database. Each database
// has its own package (store/sqlite, later store/postgres) with its SQL and
// migrations beside it, and all of them pass the same contract suite in
// store/storetest.
package store

import (
	"context"
	"encoding/json"
	"time"

	"parley/internal/domain"
)

// ErrBadMessageCursor is returned by LatestMessages for a before that is
// not a message of the conversation; the API answers 400.
var ErrBadMessageCursor error = &domain.InvalidError{Msg: "before is not a message of this conversation"}

// ErrBadCursor is returned by Conversations for a Before cursor it did not
// make. It is an *domain.InvalidError, so the API answers 400.
var ErrBadCursor error = &domain.InvalidError{Msg: "cursor is not valid"}

// Store is the whole persistence contract. Methods return domain.ErrNotFound
// for missing rows and for rows of another account; they never return
// database-specific errors for expected conditions.
type Store interface {
	Ping(ctx context.Context) error
	Close() error

	// Accounts.
	CreateAccount(ctx context.Context, a NewAccount) (domain.Account, error) // ErrConflict when the email is taken
	AccountByID(ctx context.Context, id string) (domain.Account, error)
	AccountByEmail(ctx context.Context, email string) (domain.Account, error) // email compared case-insensitively
	SetLimits(ctx context.Context, accountID string, l domain.Limits) error
	CountAccounts(ctx context.Context) (int, error)

	// API tokens; only SHA-256 hashes are stored.
	CreateAPIToken(ctx context.Context, accountID, name string, tokenHash []byte) (domain.APIToken, error)
	AccountByAPIToken(ctx context.Context, tokenHash []byte) (domain.Account, error)

	// Agents, their knowledge and their widget keys. CreateAgent checks
	// the account's agents against a.MaxAgents (*domain.AgentLimitError)
	// and the knowledge against a.KnowledgeLimits, UpdateAgent a new
	// knowledge list against p.KnowledgeLimits, each in its transaction.
	CreateAgent(ctx context.Context, a NewAgent) (domain.Agent, error)
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	Agents(ctx context.Context, accountID string) ([]domain.Agent, error) // oldest first
	UpdateAgent(ctx context.Context, accountID, agentID string, p AgentPatch) (domain.Agent, error)
	Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error) // insertion order
	// AddKnowledge appends one entry (the store assigns its id);
	// UpdateKnowledge replaces the fields of the entry with e.ID;
	// DeleteKnowledge removes one. Each bumps the agent's UpdatedAt, which
	// is what tells every instance to rebuild its index. Add and Update
	// check l (KnowledgeLimits.Check, counted as domain.SizeOf counts) in
	// the same transaction, so concurrent changes cannot pass a bound
	// together; past one they return a *domain.KnowledgeLimitError and
	// change nothing.
	AddKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry, l domain.KnowledgeLimits) (domain.KnowledgeEntry, error)
	UpdateKnowledge(ctx context.Context, accountID, agentID string, e domain.KnowledgeEntry, l domain.KnowledgeLimits) (domain.KnowledgeEntry, error)
	DeleteKnowledge(ctx context.Context, accountID, agentID, itemID string) error
	CreateKey(ctx context.Context, accountID, agentID, key string) (domain.WidgetKey, error)
	// RotateKey adds key to the agent, active, and deactivates every other
	// key of that agent, in one transaction: concurrent rotations leave
	// exactly one active key, and a failed one (a key collision:
	// domain.ErrConflict; not the account's agent: domain.ErrNotFound)
	// changes nothing.
	RotateKey(ctx context.Context, accountID, agentID, key string) (domain.WidgetKey, error)
	Keys(ctx context.Context, accountID, agentID string) ([]domain.WidgetKey, error) // oldest first
	SetKeyActive(ctx context.Context, accountID, key string, active bool) (domain.WidgetKey, error)
	// AgentByKey resolves an active key. An unknown or inactive key is
	// domain.ErrKeyInvalid.
	AgentByKey(ctx context.Context, key string) (domain.Agent, error)

	// CreateConversation admits the conversation against the account's
	// quota (quota.Admit) and inserts it in one transaction, so the count is
	// exact under concurrency. It returns domain.ErrQuota or
	// domain.ErrSpendCap when the account is blocked.
	CreateConversation(ctx context.Context, c NewConversation) (domain.Conversation, error)
	// Conversation returns any conversation by id, domain.ErrNotFound if none.
	Conversation(ctx context.Context, id string) (domain.Conversation, error)
	Conversations(ctx context.Context, accountID string, f ConversationFilter) (ConversationPage, error)
	// SetMode changes a conversation's handling mode and reports whether it
	// changed (false when it already had that mode). Handing it to a human
	// also ends its wait for one.
	SetMode(ctx context.Context, conversationID string, m domain.Mode) (changed bool, err error)
	// SetWaiting puts the conversation in (or takes it out of) the "needs a
	// human" queue and reports whether that changed.
	SetWaiting(ctx context.Context, conversationID string, waiting bool) (changed bool, err error)

	// AddMessage stores a message and returns it with the conversation as
	// it is after the write. See NewMessage for the conditional forms.
	AddMessage(ctx context.Context, m NewMessage) (domain.Message, domain.Conversation, error)
	// AddExchange stores a visitor's message and the agent's reply to it in
	// one write, for agents that answer at once (the built-in knowledge
	// base). msg is stored as AddMessage would; reply only if the
	// conversation, after msg, admits it (an operator may have taken over
	// meanwhile: reply.RequireMode). It returns the conversation after the
	// write and whether the reply was stored. Either both are on disk when
	// it returns, or (on an error) neither.
	AddExchange(ctx context.Context, msg, reply NewMessage) (domain.Conversation, bool, error)
	// PollState is what a widget's poll needs of a conversation: its agent,
	// its mode and the seq of its latest operator message (0 if none), so a
	// poll with nothing new reads nothing else. domain.ErrNotFound if there
	// is no such conversation.
	PollState(ctx context.Context, conversationID string) (PollState, error)
	// LatestMessages reads a page of a conversation's transcript: its
	// newest limit messages with Seq < before (before 0: the newest of
	// all), oldest first, and whether older ones exist. limit is clamped
	// like MessagePageSize. A before that is not the Seq of one of this
	// conversation's messages is ErrBadMessageCursor. An unknown
	// conversation has no messages.
	LatestMessages(ctx context.Context, conversationID string, before int64, limit int) (MessagePage, error)
	// MessagesAfter lists up to limit messages of one role with Seq > after,
	// oldest first.
	MessagesAfter(ctx context.Context, conversationID string, role domain.Role, after int64, limit int) ([]domain.Message, error)

	// Usage reads an account's usage in a period; zero usage when none.
	Usage(ctx context.Context, accountID, period string) (domain.Usage, error)
	// ConversationsPerDay counts the account's conversations per UTC day
	// in [from, to), one DayCount per day, days without any included.
	ConversationsPerDay(ctx context.Context, accountID string, from, to time.Time) ([]domain.DayCount, error)
	// ConversationsCreated counts the account's conversations created in
	// [from, to) (the surge alert compares recent and usual volumes).
	ConversationsCreated(ctx context.Context, accountID string, from, to time.Time) (int, error)

	// Dashboard users. Emails are unique across the instance and compared
	// case-insensitively. CreateAccount also creates the account's owner
	// user with the account's email, name and password hash.
	CreateUser(ctx context.Context, u NewUser) (domain.User, error) // ErrConflict when the email is taken
	UserByEmail(ctx context.Context, email string) (domain.User, error)
	User(ctx context.Context, accountID, userID string) (domain.User, error)
	Users(ctx context.Context, accountID string) ([]domain.User, error) // oldest first
	SetPassword(ctx context.Context, userID, passwordHash string) error
	// DeleteUser removes a user and their sessions; the last owner of an
	// account cannot be deleted (domain.ErrConflict). Conversations the
	// user was answering go back to the AI, waiting for a human.
	DeleteUser(ctx context.Context, accountID, userID string) error

	// Sessions: only SHA-256 hashes of session tokens are stored.
	CreateSession(ctx context.Context, userID string, tokenHash []byte, expires time.Time) error
	// SessionUser returns the user of a session that has not expired at
	// now; domain.ErrNotFound otherwise.
	SessionUser(ctx context.Context, tokenHash []byte, now time.Time) (domain.User, error)
	DeleteSession(ctx context.Context, tokenHash []byte) error
	DeleteUserSessions(ctx context.Context, userID string) error

	// APITokens lists the account's tokens (never the tokens themselves),
	// oldest first; RevokeAPIToken deletes one.
	APITokens(ctx context.Context, accountID string) ([]domain.APIToken, error)
	RevokeAPIToken(ctx context.Context, accountID, tokenID string) error

	// TakeOver hands an AI-handled conversation to the operator in one
	// atomic step. When another operator got there first it returns
	// won=false and the conversation as it is (with the holder's name).
	TakeOver(ctx context.Context, conversationID, userID, userName string) (conv domain.Conversation, won bool, err error)
}

// NewUser is a dashboard user to create.
type NewUser struct {
	AccountID    string
	Email        string
	Name         string
	PasswordHash string
	Role         domain.UserRole
}

type NewAccount struct {
	Email        string
	Name         string
	PasswordHash string
	Limits       domain.Limits
}

type NewAgent struct {
	AccountID   string
	ChatbotName string
	Config      json.RawMessage // a JSON object; "{}" when nil
	Knowledge   []domain.KnowledgeEntry
	Key         string // the agent's first widget key

	KnowledgeLimits domain.KnowledgeLimits
	MaxAgents       int // the account's agents, this one included; 0: no bound
}

// AgentPatch changes the fields that are not nil.
type AgentPatch struct {
	ChatbotName *string
	Config      json.RawMessage
	Knowledge   *[]domain.KnowledgeEntry // replaces all entries when set

	KnowledgeLimits domain.KnowledgeLimits // for Knowledge
}

type NewConversation struct {
	ID        string
	AgentID   string
	AccountID string
	VisitorID string
	PageURL   string
	CreatedAt time.Time // also decides the billing period
}

// NewMessage is a message to store.
//   - MaxMessages, when above 0, caps the conversation's messages (see
//     Fits): a message that does not fit is not written and the error is
//     domain.ErrConversationFull. The store checks it in the write
//     itself, against the count as the write finds it, so the cap holds
//     however many writes race.
//   - RequireMode, when set, makes the write conditional: if the
//     conversation is in another mode nothing is written and the error is
//     domain.ErrModeChanged (an AI reply after an operator took over).
//   - SetMode, when set, changes the mode in the same transaction (an
//     operator's reply takes the conversation over; like SetMode, handing
//     it to a human ends its wait).
//   - For an AI message, Unanswered counts it as a miss: the conversation's
//     Misses grows by one, and any answered AI message resets it to zero.
//   - SetWaiting marks the conversation as waiting for a human in the same
//     transaction (as SetWaiting(true) would), when it stays AI-handled; a
//     human-handled conversation does not wait.
//   - AssigneeID and AssigneeName, with SetMode human, name the dashboard
//     user the conversation is assigned to when this message takes it from
//     the AI (as TakeOver would, in the same transaction). A conversation
//     a human already handles keeps its assignee.
type NewMessage struct {
	ConversationID string
	Role           domain.Role
	Text           string
	OperatorName   string
	CreatedAt      time.Time
	RequireMode    domain.Mode
	SetMode        domain.Mode
	Unanswered     bool
	SetWaiting     bool
	AssigneeID     string
	AssigneeName   string
	MaxMessages    int
}

// PollState: see Store.PollState.
type PollState struct {
	AgentID         string
	Mode            domain.Mode
	LastOperatorSeq int64
}

// ConversationFilter selects and pages conversations, newest first.
type ConversationFilter struct {
	AgentID string      // "" for all
	Mode    domain.Mode // "" for all
	Waiting *bool       // nil for all; true: only those waiting for a human
	Search  string      // "" for all; else only those with a message containing it (case-insensitive)
	Limit   int         // 1..100; 0 means 50
	Before  string      // cursor from ConversationPage.Next; "" for the first page
}

type ConversationPage struct {
	Conversations []domain.Conversation
	Next          string // "" on the last page
}

// Page sizes of Conversations.
const (
	DefaultPage = 50
	MaxPage     = 100
)

// PageSize is the filter's Limit as every store applies it: 0 means
// DefaultPage, and it is clamped to 1..MaxPage.
func (f ConversationFilter) PageSize() int {
	switch {
	case f.Limit == 0:
		return DefaultPage
	case f.Limit < 1:
		return 1
	case f.Limit > MaxPage:
		return MaxPage
	}
	return f.Limit
}

// MessagePage is a page of a transcript: see Store.LatestMessages.
type MessagePage struct {
	Messages []domain.Message // oldest first
	More     bool             // older messages exist: ask again with before = Messages[0].Seq
}

// Page sizes of LatestMessages.
const (
	DefaultMessagePage = 100
	MaxMessagePage     = 500
)

// MessagePageSize is LatestMessages' limit as every store applies it: 0
// means DefaultMessagePage, and it is clamped to 1..MaxMessagePage.
func MessagePageSize(limit int) int {
	switch {
	case limit == 0:
		return DefaultMessagePage
	case limit < 1:
		return 1
	case limit > MaxMessagePage:
		return MaxMessagePage
	}
	return limit
}
