package store

import (
	"context"
	"time"
)

// VisitorDetails are what the operator desk shows beside a conversation
// (issue 19, the inbox): what the widget told about the visitor's browser
// at init, and the pages the visitor was on while chatting. They go with
// their conversation (ON DELETE CASCADE), so erasing a visitor or the
// retention sweep takes them too.
type VisitorDetails interface {
	// SetVisitorContext stores what the widget told at init; a second call
	// replaces it. A conversation that does not exist records nothing and
	// is no error.
	SetVisitorContext(ctx context.Context, conversationID string, v VisitorContext) error
	// RecordPage adds url to the conversation's page history at at, unless
	// it is already the latest page there; only the MaxPageHistory latest
	// are kept. An unknown conversation records nothing and is no error.
	RecordPage(ctx context.Context, conversationID, url string, at time.Time) error
	// VisitorContext reads the conversation's context with its pages,
	// latest first; the zero VisitorContext when none was stored.
	VisitorContext(ctx context.Context, conversationID string) (VisitorContext, error)
	// VisitorSeen is when the visitor's first conversation in the account
	// started and how many they have there (by visitor_id); zero and 0 for
	// an unknown visitor.
	VisitorSeen(ctx context.Context, accountID, visitorID string) (first time.Time, conversations int, err error)
}

// VisitorContext is what the widget sees that the server cannot: the
// browser's User-Agent (the server reads that header), language, time
// zone (an IANA name) and the referrer of the page, plus the page history.
type VisitorContext struct {
	UserAgent string
	Language  string
	TimeZone  string
	Referrer  string
	Pages     []PageView // latest first, at most MaxPageHistory
}

// PageView is one page the visitor was on.
type PageView struct {
	URL string
	At  time.Time
}

// MaxPageHistory is how many pages a conversation's history keeps.
const MaxPageHistory = 20

// ReadMarks are how far each operator has read each conversation, for the
// inbox's unread counts.
type ReadMarks interface {
	// MarkRead moves the user's mark in the conversation to seq; a mark
	// never moves back. An unknown user or conversation is no error and
	// records nothing.
	MarkRead(ctx context.Context, userID, conversationID string, seq int64) error
	// UnreadCounts counts, for each of the conversations, the visitor's
	// messages after the user's mark (all of them when there is none).
	// Conversations with none unread are left out of the map.
	UnreadCounts(ctx context.Context, userID string, conversationIDs []string) (map[string]int, error)
}
