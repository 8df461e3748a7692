// Package store defines what Parley needs from its database. Each database
// has its own package (store/sqlite, later store/postgres) with its SQL and
// migrations beside it, and all of them pass the same contract suite in
// store/storetest.
package store

import (
	"context"
	"time"

	"parley/internal/domain"
)

// ErrBadMessageCursor is returned by LatestMessages for a before that is
// not a message of the conversation; the API answers 400.
var ErrBadMessageCursor error = &domain.InvalidError{Msg: "before is not a message of this conversation"}

// ErrBadCursor is returned by Conversations for a Before cursor it did not
// make. It is an *domain.InvalidError, so the API answers 400.
var ErrBadCursor error = &domain.InvalidError{Msg: "cursor is not valid"}

// Store is the whole persistence contract: every per-entity interface
// below, which is what each database's package implements and the contract
// suite (store/storetest) checks. Methods return domain.ErrNotFound for
// missing rows and for rows of another account; they never return
// database-specific errors for expected conditions.
//
// A caller that needs only a few methods takes the small interface it uses
// (Accounts, Users, Messages, ...) rather than Store, so what it depends on
// is visible in its signature and a test fake stays small.
type Store interface {
	Pinger
	Close() error

	Accounts
	APITokens
	Agents
	Knowledge
	Keys
	Conversations
	Messages
	Feedback
	Usage
	Users
	Sessions
	Sources
	Vectors
	Visitors
	AuditLog
	Retention
	Origins
	Webhooks
	Identities
	Desk
	CannedReplies
	Notes
	VisitorDetails
	ReadMarks
	Offline
	Insights
}

// Identities are the agents' identity secrets (identity verification,
// issue 18). A secret is stored as the LLM keys are, in the clear in the
// agent's row: the server needs it to check every hash. An agent has none
// ("") until its owner first asks for it.
type Identities interface {
	// IdentitySecret reads the agent's secret, "" when it has none;
	// domain.ErrNotFound when the agent is not the account's.
	IdentitySecret(ctx context.Context, accountID, agentID string) (string, error)
	// SetIdentitySecret stores secret as the agent's and returns the
	// agent's secret after the write. With onlyIfNone, an agent that has
	// one keeps it (and that one is returned), so two first readers agree.
	SetIdentitySecret(ctx context.Context, accountID, agentID, secret string, onlyIfNone bool) (string, error)
}

// Pinger checks that the database answers (the health check).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Accounts are the tenants; each has limits and at least one owner user.
type Accounts interface {
	CreateAccount(ctx context.Context, a NewAccount) (domain.Account, error) // ErrConflict when the email is taken
	AccountByID(ctx context.Context, id string) (domain.Account, error)
	AccountByEmail(ctx context.Context, email string) (domain.Account, error) // email compared case-insensitively
	SetLimits(ctx context.Context, accountID string, l domain.Limits) error
	CountAccounts(ctx context.Context) (int, error)
}

// APITokens are the management API's tokens; only SHA-256 hashes are
// stored.
type APITokens interface {
	CreateAPIToken(ctx context.Context, accountID, name string, tokenHash []byte) (domain.APIToken, error)
	AccountByAPIToken(ctx context.Context, tokenHash []byte) (domain.Account, error)
	// APITokens lists the account's tokens (never the tokens themselves),
	// oldest first; RevokeAPIToken deletes one.
	APITokens(ctx context.Context, accountID string) ([]domain.APIToken, error)
	RevokeAPIToken(ctx context.Context, accountID, tokenID string) error
}

// Agents are an account's chatbots. CreateAgent checks the account's
// agents against a.MaxAgents (*domain.AgentLimitError) and
// the knowledge against a.KnowledgeLimits, UpdateAgent a new knowledge
// list against p.KnowledgeLimits, each in its transaction.
type Agents interface {
	CreateAgent(ctx context.Context, a NewAgent) (domain.Agent, error)
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	Agents(ctx context.Context, accountID string) ([]domain.Agent, error) // oldest first
	UpdateAgent(ctx context.Context, accountID, agentID string, p AgentPatch) (domain.Agent, error)
}

// Knowledge is an agent's knowledge base.
type Knowledge interface {
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
}

// Keys are the agents' widget keys.
type Keys interface {
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
}

// Conversations are the widget's chats and who handles them.
type Conversations interface {
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
	// TakeOver hands an AI-handled conversation to the operator in one
	// atomic step. When another operator got there first it returns
	// won=false and the conversation as it is (with the holder's name).
	TakeOver(ctx context.Context, conversationID, userID, userName string) (conv domain.Conversation, won bool, err error)
}

// Messages are a conversation's transcript.
type Messages interface {
	// AddMessage stores a message and returns it with the conversation as
	// it is after the write. See NewMessage for the conditional forms.
	AddMessage(ctx context.Context, m NewMessage) (domain.Message, domain.Conversation, error)
	// AddExchange stores a visitor's message and the agent's reply to it in
	// one write, for agents that answer at once (the built-in knowledge
	// base). msg is stored as AddMessage would; reply only if the
	// conversation, after msg, admits it (an operator may have taken over
	// meanwhile: reply.RequireMode). It returns the conversation after the
	// write and the stored reply's seq (0: the reply was not stored; the
	// widget's "message_id" of an AI answer, issue 20). Either both are on
	// disk when it returns, or (on an error) neither.
	AddExchange(ctx context.Context, msg, reply NewMessage) (conv domain.Conversation, replySeq int64, err error)
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
	// ConversationTokens sums the LLM tokens of a conversation's messages;
	// zero for an unknown conversation or one without LLM replies.
	ConversationTokens(ctx context.Context, conversationID string) (domain.Tokens, error)
}

// Usage is what an account has used, for billing and the dashboard.
type Usage interface {
	// Usage reads an account's usage in a period; zero usage when none.
	Usage(ctx context.Context, accountID, period string) (domain.Usage, error)
	// ConversationsPerDay counts the account's conversations per UTC day
	// in [from, to), one DayCount per day, days without any included.
	ConversationsPerDay(ctx context.Context, accountID string, from, to time.Time) ([]domain.DayCount, error)
	// ConversationsCreated counts the account's conversations created in
	// [from, to) (the surge alert compares recent and usual volumes).
	ConversationsCreated(ctx context.Context, accountID string, from, to time.Time) (int, error)
}

// Users are the dashboard's users. Emails are unique across the instance
// and compared case-insensitively. CreateAccount also creates the
// account's owner user with the account's email, name and password hash.
type Users interface {
	CreateUser(ctx context.Context, u NewUser) (domain.User, error) // ErrConflict when the email is taken
	UserByEmail(ctx context.Context, email string) (domain.User, error)
	User(ctx context.Context, accountID, userID string) (domain.User, error)
	Users(ctx context.Context, accountID string) ([]domain.User, error) // oldest first
	SetPassword(ctx context.Context, userID, passwordHash string) error
	// SetUserLanguage records the language the user reads the dashboard
	// in (one of i18n.Languages; the caller checks), so that mail to them
	// (the wait alerts) is written in it. domain.ErrNotFound when there is
	// no such user.
	SetUserLanguage(ctx context.Context, userID, lang string) error
	// DeleteUser removes a user and their sessions; the last owner of an
	// account cannot be deleted (domain.ErrConflict). Conversations the
	// user was answering go back to the AI, waiting for a human.
	DeleteUser(ctx context.Context, accountID, userID string) error
}

// Sessions are dashboard sign-ins: only SHA-256 hashes of session tokens
// are stored.
type Sessions interface {
	CreateSession(ctx context.Context, userID string, tokenHash []byte, expires time.Time) error
	// SessionUser returns the user of a session that has not expired at
	// now; domain.ErrNotFound otherwise.
	SessionUser(ctx context.Context, tokenHash []byte, now time.Time) (domain.User, error)
	DeleteSession(ctx context.Context, tokenHash []byte) error
	DeleteUserSessions(ctx context.Context, userID string) error
}

// Sources are where an agent's knowledge comes from besides what its owner
// types: websites, crawled and kept in sync (package sources runs the
// syncs). A source and its pages go with their agent.
//
// A source's pages change only as a whole: ReplaceSourcePages swaps the
// set a sync found for the one before in one transaction, so visitors
// never see a half-synced source. Every method that changes which pages
// answer (ReplaceSourcePages, DeleteSource) bumps the agent's UpdatedAt,
// as knowledge changes do, so indexes rebuild. The methods that run a sync
// take the source's id alone (the job worker has no account); those the
// owner calls take the account too, and another account's source is
// domain.ErrNotFound.
type Sources interface {
	// CreateSource adds a source to the agent (domain.ErrNotFound when it
	// is not the account's), queued, with a fresh "src_" id.
	CreateSource(ctx context.Context, n NewSource) (domain.Source, error)
	Source(ctx context.Context, accountID, sourceID string) (domain.Source, error)
	// SourceByID is any account's source: for the job worker.
	SourceByID(ctx context.Context, sourceID string) (domain.Source, error)
	Sources(ctx context.Context, accountID, agentID string) ([]domain.Source, error) // oldest first
	// DeleteSource removes the source and its pages. A sync still running
	// cannot bring them back: its writes find no source (ErrNotFound).
	DeleteSource(ctx context.Context, accountID, sourceID string) error
	// QueueSource records that a sync was asked for at at: status queued,
	// unless one is running (it stays syncing), and the next scheduled
	// sync a period later.
	QueueSource(ctx context.Context, sourceID string, at time.Time) (domain.Source, error)
	// StartSourceSync marks the source syncing, with no pages taken in yet
	// and no error (nor its reasons); SetSourceProgress records the pages taken in so far.
	StartSourceSync(ctx context.Context, sourceID string) error
	SetSourceProgress(ctx context.Context, sourceID string, pages int) error
	// FailSourceSync ends a sync that failed at f.At: status failed,
	// f.Error and f.Reasons as its error, and the pages count back to the
	// pages still answering (the earlier sync's).
	FailSourceSync(ctx context.Context, sourceID string, f SourceFailure) error
	// ReplaceSourcePages ends a sync that took pages in (BuildPages): in
	// one transaction the source's pages become these, it is ready with
	// their count and size, synced at r.At, its error cleared, r.Note and
	// r.NoteReasons kept, next due a period later, and the agent's
	// UpdatedAt bumped.
	ReplaceSourcePages(ctx context.Context, sourceID string, pages []domain.SourcePage, r SourceSync) error
	// AgentSourcePages are the pages of all of the agent's sources, for
	// its knowledge index: oldest source first, each in the order its sync
	// found them.
	AgentSourcePages(ctx context.Context, agentID string) ([]domain.SourcePage, error)
	// SourcePages lists a source's pages, in the order its sync found
	// them, without their texts.
	SourcePages(ctx context.Context, sourceID string) ([]SourcePageInfo, error)
	// DueSources are up to limit sources whose NextSyncAt is at or before
	// now, the longest due first.
	DueSources(ctx context.Context, now time.Time, limit int) ([]domain.Source, error)
}
