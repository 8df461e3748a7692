package store

import (
	"encoding/json"
	"time"

	"parley/internal/domain"
)

// The values the Store's methods take and return that are not domain
// types: what to create, what to change, how to page.

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
	// Identity is who the visitor said they are (domain.VerifiedIdentity:
	// UserID only when verified); the zero value for an anonymous one.
	Identity domain.VerifiedIdentity
	// Crossed, when not nil, receives the usage thresholds this
	// conversation took its account across (quota.Crossed), each only the
	// first time in the period for the account: a marker row written in
	// the same transaction makes it once however many instances race.
	// Set only when CreateConversation succeeds; the caller tells of
	// them (the usage.threshold event).
	Crossed *[]domain.UsageThreshold
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
	// Tokens is what an AI reply from an LLM cost: stored with the message
	// and, in the same transaction, added to the account's usage of the
	// UTC month of the message's time (quota.Period).
	Tokens domain.Tokens
	// Question is, for an AI reply, the visitor's message it answers, and
	// Lang the widget's language then ("" when not told): an Unanswered
	// reply records them as a Question (QuestionUnanswered) in the same
	// write, for the knowledge gaps (issue 20).
	Question, Lang string
}

// PollState: see Store.PollState.
type PollState struct {
	AgentID         string
	Mode            domain.Mode
	LastOperatorSeq int64
	// Status: open or resolved (the operator desk, issue 19); the widget
	// offers the rating of a resolved conversation (chat.AskRating).
	Status domain.Status
}

// ConversationFilter selects and pages conversations, in Order (newest
// first by start unless it says otherwise).
type ConversationFilter struct {
	AgentID string      // "" for all
	Mode    domain.Mode // "" for all
	Waiting *bool       // nil for all; true: only those waiting for a human
	Search  string      // "" for all; else only those with a message containing it (case-insensitive)
	UserID  string      // "" for all; else only those of this verified user (identity verification)
	// The operator desk (issue 19): Status "" for all, else only those
	// open or resolved; Assignee nil for all, else only those assigned to
	// that user ("" for the unassigned).
	Status   domain.Status
	Assignee *string
	Order    Order  // ByCreated (the zero value), ByActivity or ByWaiting
	Limit    int    // 1..100; 0 means 50
	Before   string // cursor from ConversationPage.Next; "" for the first page
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
