package store

import (
	"strings"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
)

// The Go both SQL stores run around their SQL, written once: checking what
// they are given, giving new rows their ids and times, and the stored
// forms of values. Each store then only writes and reads rows.

// StoredTime is t at the precision the stores keep (milliseconds), in UTC,
// so what a method returns equals what a later read returns, whatever the
// database's own precision and the process's zone.
func StoredTime(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// Now is the current time at the stores' precision.
func Now() time.Time { return StoredTime(time.Now()) }

// OrNow is t at the stores' precision, or now for the zero time.
func OrNow(t time.Time) time.Time {
	if t.IsZero() {
		return Now()
	}
	return StoredTime(t)
}

// NormEmail is the stored form of an email. Lower-casing in Go, on the way
// in and on lookup, makes a UNIQUE column case-insensitive for every
// alphabet, whatever the database folds (SQLite's NOCASE: ASCII only;
// PostgreSQL's lower(): the locale's idea).
func NormEmail(email string) string { return strings.ToLower(email) }

// Build checks n and makes the account and its owner user, created at at:
// an account nobody can sign in to must never exist, so the stores insert
// both in one transaction.
func (n NewAccount) Build(at time.Time) (domain.Account, domain.User, error) {
	if err := CheckText(n.Email, n.Name, n.PasswordHash); err != nil {
		return domain.Account{}, domain.User{}, err
	}
	a := domain.Account{
		ID:           secret.AccountID(),
		Email:        NormEmail(n.Email),
		Name:         n.Name,
		PasswordHash: n.PasswordHash,
		Limits:       n.Limits,
		CreatedAt:    at,
	}
	owner := domain.User{
		ID:           newUserID(),
		AccountID:    a.ID,
		Email:        a.Email,
		Name:         a.Name,
		PasswordHash: a.PasswordHash,
		Role:         domain.UserOwner,
		CreatedAt:    at,
	}
	return a, owner, nil
}

func newUserID() string { return secret.ID("usr_", 10) }

// Build checks n and makes the user, created at at.
func (n NewUser) Build(at time.Time) (domain.User, error) {
	if err := CheckText(n.AccountID, n.Email, n.Name, n.PasswordHash); err != nil {
		return domain.User{}, err
	}
	if err := CheckRole(n.Role); err != nil {
		return domain.User{}, err
	}
	return domain.User{
		ID:           newUserID(),
		AccountID:    n.AccountID,
		Email:        NormEmail(n.Email),
		Name:         n.Name,
		PasswordHash: n.PasswordHash,
		Role:         n.Role,
		CreatedAt:    at,
	}, nil
}

// Build checks n (its texts, its config, its knowledge against
// n.KnowledgeLimits) and makes the agent, created at at, with its config
// in compact form. The agent limit (Admit) is the store's to check, in
// the transaction that inserts.
func (n NewAgent) Build(at time.Time) (domain.Agent, error) {
	if err := CheckText(n.AccountID, n.ChatbotName, n.Key); err != nil {
		return domain.Agent{}, err
	}
	if err := CheckKnowledge(n.Knowledge...); err != nil {
		return domain.Agent{}, err
	}
	config, err := CompactConfig(n.Config)
	if err != nil {
		return domain.Agent{}, err
	}
	if err := n.KnowledgeLimits.Check(domain.KnowledgeSize{}, domain.SizeOf(n.Knowledge)); err != nil {
		return domain.Agent{}, err
	}
	return domain.Agent{
		ID:          secret.AgentID(),
		AccountID:   n.AccountID,
		ChatbotName: n.ChatbotName,
		Config:      domain.DecodeAgentConfig([]byte(config)),
		CreatedAt:   at,
		UpdatedAt:   at,
	}, nil
}

// Check checks the texts of p and returns its config in compact form ("" when
// p leaves the config alone).
func (p AgentPatch) Check() (config string, err error) {
	if p.ChatbotName != nil {
		if err := CheckText(*p.ChatbotName); err != nil {
			return "", err
		}
	}
	if p.Knowledge != nil {
		if err := CheckKnowledge(*p.Knowledge...); err != nil {
			return "", err
		}
	}
	if p.Config == nil {
		return "", nil
	}
	return CompactConfig(p.Config)
}

// NewKnowledge is entry e as AddKnowledge stores it: with a fresh id (ids
// a caller sends are not trusted) and a kind.
func NewKnowledge(e domain.KnowledgeEntry) domain.KnowledgeEntry {
	e.ID = secret.KnowledgeID()
	return WithKind(e)
}

// WithKind is e with its kind, question and answer when it has none.
func WithKind(e domain.KnowledgeEntry) domain.KnowledgeEntry {
	if e.Kind == "" {
		e.Kind = domain.KindQA
	}
	return e
}

// Build checks n and makes the conversation as it is created: handled by
// the AI, with a fresh id and the current time unless n has them.
func (n NewConversation) Build() (domain.Conversation, error) {
	id := n.Identity
	if err := CheckText(n.ID, n.AgentID, n.AccountID, n.VisitorID, n.PageURL, id.UserID, id.Name, id.Email); err != nil {
		return domain.Conversation{}, err
	}
	c := domain.Conversation{
		ID:        n.ID,
		AgentID:   n.AgentID,
		AccountID: n.AccountID,
		VisitorID: n.VisitorID,
		PageURL:   n.PageURL,
		Mode:      domain.ModeAI,
		CreatedAt: OrNow(n.CreatedAt),
		UserID:    id.UserID,
		Name:      id.Name,
		Email:     id.Email,
		Verified:  id.Verified && id.UserID != "",
		Status:    domain.StatusOpen,
	}
	c.LastActivityAt = c.CreatedAt // a new conversation is the newest activity
	if !c.Verified {
		c.UserID = "" // an unverified user id is never kept
	}
	if c.ID == "" {
		c.ID = secret.ConversationID()
	}
	return c, nil
}

// Message is n as stored, but for its seq: created now unless n has a
// time.
func (n NewMessage) Message() domain.Message {
	return domain.Message{
		ConversationID: n.ConversationID,
		Role:           n.Role,
		Text:           n.Text,
		OperatorName:   n.OperatorName,
		CreatedAt:      OrNow(n.CreatedAt),
		Tokens:         n.Tokens,
	}
}

// UTCDay is the length of a UTC day: UTC has no daylight saving time.
const UTCDay = 24 * time.Hour

// Days are the UTC days ConversationsPerDay lists, with no counts yet: from
// the one holding from up to the last one starting before to, so a from or
// to inside a day still lists that day. A store counts each conversation
// into days[(created - Days[0].Day) / 24h].
func Days(from, to time.Time) []domain.DayCount {
	y, m, d := from.UTC().Date()
	first := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	days := []domain.DayCount{}
	for t := first; t.Before(to); t = t.Add(UTCDay) {
		days = append(days, domain.DayCount{Day: t})
	}
	return days
}

// CountDay adds n conversations to day i of days, ignoring an i outside
// them (which the stores' queries never make; it guards the index).
func CountDay(days []domain.DayCount, i int64, n int) {
	if i >= 0 && i < int64(len(days)) {
		days[i].Count = n
	}
}
