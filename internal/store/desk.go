package store

import (
	"context"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
)

// CannedReplies are an account's saved replies (issue 19): a shortcut the
// operator types ("/refund"), a language and a text. Package canned holds
// the rules (what a shortcut may be, the languages, the text's length,
// the variables); the store keeps the rows and the two bounds that must
// hold under concurrency: at most MaxCannedReplies per account
// (CreateCannedReply checks it in its transaction) and one reply per
// shortcut and language (domain.ErrConflict). Another account's reply is
// domain.ErrNotFound.
type CannedReplies interface {
	CreateCannedReply(ctx context.Context, n NewCannedReply) (CannedReply, error)
	CannedReply(ctx context.Context, accountID, id string) (CannedReply, error)
	// CannedReplies lists the account's replies by shortcut, then
	// language.
	CannedReplies(ctx context.Context, accountID string) ([]CannedReply, error)
	// UpdateCannedReply replaces the reply's shortcut, language and text.
	UpdateCannedReply(ctx context.Context, accountID, id string, p CannedReplyPatch) (CannedReply, error)
	DeleteCannedReply(ctx context.Context, accountID, id string) error
}

// MaxCannedReplies bounds an account's canned replies.
const MaxCannedReplies = 500

// ErrCannedLimit: the account has MaxCannedReplies replies.
var ErrCannedLimit error = &domain.InvalidError{Msg: "an account can have at most 500 canned replies"}

// CannedReply is one saved reply. Language is "en", "ro", "ru" or "any".
type CannedReply struct {
	ID        string
	AccountID string
	Shortcut  string
	Language  string
	Text      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// NewCannedReply is a reply package canned has checked.
type NewCannedReply struct {
	AccountID string
	Shortcut  string
	Language  string
	Text      string
}

// Build makes the reply as created at.
func (n NewCannedReply) Build(at time.Time) (CannedReply, error) {
	if err := CheckText(n.AccountID, n.Shortcut, n.Language, n.Text); err != nil {
		return CannedReply{}, err
	}
	at = StoredTime(at)
	return CannedReply{ID: secret.ID("cr_", 10), AccountID: n.AccountID, Shortcut: n.Shortcut,
		Language: n.Language, Text: n.Text, CreatedAt: at, UpdatedAt: at}, nil
}

// CannedReplyPatch is a reply's new fields, all of them.
type CannedReplyPatch struct {
	Shortcut string
	Language string
	Text     string
}

// Notes are the team's private notes on a conversation (issue 19). They
// live in a table of their own, not among the messages, so no reader of
// messages (the widget's poll and history, the stream, exports, search,
// counts, the message cap, webhooks) can ever show one to the visitor.
// A note goes with its conversation. Another account's conversation is
// domain.ErrNotFound.
type Notes interface {
	// AddNote stores a note with a fresh "nt_" id; ErrNoteLimit past
	// MaxNotesPerConversation.
	AddNote(ctx context.Context, n NewNote) (Note, error)
	// Notes lists a conversation's notes, oldest first.
	Notes(ctx context.Context, accountID, conversationID string) ([]Note, error)
}

// MaxNotesPerConversation bounds a conversation's notes.
const MaxNotesPerConversation = 200

// ErrNoteLimit: the conversation has MaxNotesPerConversation notes.
var ErrNoteLimit error = &domain.InvalidError{Msg: "a conversation can have at most 200 notes"}

// Note is one private note.
type Note struct {
	ID             string
	AccountID      string
	ConversationID string
	AuthorID       string // the user's id, or the API token's
	AuthorName     string
	Text           string
	CreatedAt      time.Time
}

// NewNote is a note to add.
type NewNote struct {
	AccountID      string
	ConversationID string
	AuthorID       string
	AuthorName     string
	Text           string
}

// Build makes the note as written at.
func (n NewNote) Build(at time.Time) (Note, error) {
	if err := CheckText(n.AccountID, n.ConversationID, n.AuthorID, n.AuthorName, n.Text); err != nil {
		return Note{}, err
	}
	return Note{ID: secret.ID("nt_", 12), AccountID: n.AccountID, ConversationID: n.ConversationID,
		AuthorID: n.AuthorID, AuthorName: n.AuthorName, Text: n.Text, CreatedAt: StoredTime(at)}, nil
}
