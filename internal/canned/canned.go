// Package canned is the rule of the operator desk's canned replies and
// private notes (issue 19).
//
// A canned reply is an account's saved answer: a shortcut the operator
// types in the reply box ("/refund"), a language (one of i18n.Languages
// or "any") and a text of at most MaxText characters with variables
// ({{visitor.name}}, {{visitor.email}}, {{operator.name}},
// {{agent.name}}) that Fill replaces on the server. Owners manage them;
// every operator uses them. Of the replies sharing a shortcut, the one in
// the visitor's language wins, then "any", then English, then the first.
//
// A private note is the team's text on a conversation. Notes are kept
// apart from messages (store.Notes), so no reader of messages, and hence
// nothing the visitor can reach, ever sees one.
//
// The management API and the dashboard both go through Service, which
// records canned.create, canned.update, canned.delete and
// conversation.note in the audit log.
package canned

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"parley/internal/audit"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/store"
	"parley/web/i18n"
)

// Bounds.
const (
	MaxText     = 2000 // characters of a reply's text, and of a note's
	MaxShortcut = 32   // characters of a shortcut
	AnyLanguage = "any"
)

// Store is what the service uses of the store.
type Store interface {
	store.CannedReplies
	store.Notes
}

// Service applies the rules.
type Service struct {
	Store Store
	Audit *audit.Service // nil records nothing
	// Notifier is told of a new note on the conversation's team topic
	// (chat.TeamTopic), so the team's open pages of it refresh; nil: none.
	Notifier notify.Notifier
}

// Input is a reply as an owner gives it.
type Input struct {
	Shortcut string
	Language string
	Text     string
}

var shortcutRe = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{N}_-]+$`)

// Errors of the rule; each is an *domain.InvalidError (400).
var (
	ErrShortcut = domain.Invalid("shortcut must be 1 to 32 lower-case letters, digits, '-' or '_' (without the leading '/')")
	ErrLanguage = domain.Invalid("language must be one of en, ro, ru or any")
	ErrText     = domain.Invalid("text must be 1 to 2000 characters")
)

// Normalize checks in and returns it as stored: the shortcut without a
// leading "/" and in lower case, the language in lower case, the text
// trimmed.
func Normalize(in Input) (Input, error) {
	in.Shortcut = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(in.Shortcut), "/"))
	in.Language = strings.ToLower(strings.TrimSpace(in.Language))
	in.Text = strings.TrimSpace(in.Text)
	if n := utf8.RuneCountInString(in.Shortcut); n == 0 || n > MaxShortcut || !shortcutRe.MatchString(in.Shortcut) {
		return in, ErrShortcut
	}
	if !validLanguage(in.Language) {
		return in, ErrLanguage
	}
	if n := utf8.RuneCountInString(in.Text); n == 0 || n > MaxText {
		return in, ErrText
	}
	if err := store.CheckText(in.Text); err != nil {
		return in, err
	}
	return in, nil
}

func validLanguage(l string) bool {
	if l == AnyLanguage {
		return true
	}
	for _, k := range i18n.Languages {
		if l == k {
			return true
		}
	}
	return false
}

func (s *Service) List(ctx context.Context, accountID string) ([]store.CannedReply, error) {
	return s.Store.CannedReplies(ctx, accountID)
}

func (s *Service) Get(ctx context.Context, accountID, id string) (store.CannedReply, error) {
	return s.Store.CannedReply(ctx, accountID, id)
}

// Create adds a reply; domain.ErrConflict when the account has one with
// that shortcut and language, store.ErrCannedLimit past the bound.
func (s *Service) Create(ctx context.Context, accountID string, in Input) (store.CannedReply, error) {
	in, err := Normalize(in)
	if err != nil {
		return store.CannedReply{}, err
	}
	c, err := s.Store.CreateCannedReply(ctx, store.NewCannedReply{AccountID: accountID, Shortcut: in.Shortcut, Language: in.Language, Text: in.Text})
	if err != nil {
		return store.CannedReply{}, err
	}
	s.Audit.Record(ctx, accountID, audit.CannedCreate, audit.Target("canned", c.ID))
	return c, nil
}

// Update replaces a reply's fields.
func (s *Service) Update(ctx context.Context, accountID, id string, in Input) (store.CannedReply, error) {
	in, err := Normalize(in)
	if err != nil {
		return store.CannedReply{}, err
	}
	c, err := s.Store.UpdateCannedReply(ctx, accountID, id, store.CannedReplyPatch{Shortcut: in.Shortcut, Language: in.Language, Text: in.Text})
	if err != nil {
		return store.CannedReply{}, err
	}
	s.Audit.Record(ctx, accountID, audit.CannedUpdate, audit.Target("canned", c.ID))
	return c, nil
}

func (s *Service) Delete(ctx context.Context, accountID, id string) error {
	if err := s.Store.DeleteCannedReply(ctx, accountID, id); err != nil {
		return err
	}
	s.Audit.Record(ctx, accountID, audit.CannedDelete, audit.Target("canned", id))
	return nil
}

// Vars are the values of a reply's variables. An empty value takes the
// variable's fallback: the one written in the reply
// ({{visitor.name|there}}), else operator.name falls back to agent.name
// and the others to nothing (the space before an empty variable goes with
// it, so "Hi {{visitor.name}}," reads "Hi,").
type Vars struct {
	VisitorName  string
	VisitorEmail string
	OperatorName string
	AgentName    string
}

var varRe = regexp.MustCompile(`(\s?)\{\{\s*([a-z]+\.[a-z]+)\s*(?:\|([^}]*))?\}\}`)

// Fill replaces the variables of text with v's values. An unknown
// variable is left as written, so a typo shows.
func Fill(text string, v Vars) string {
	return varRe.ReplaceAllStringFunc(text, func(m string) string {
		g := varRe.FindStringSubmatch(m)
		space, name, fallback := g[1], g[2], strings.TrimSpace(g[3])
		var val string
		switch name {
		case "visitor.name":
			val = v.VisitorName
		case "visitor.email":
			val = v.VisitorEmail
		case "operator.name":
			val = v.OperatorName
			if val == "" {
				val = v.AgentName
			}
		case "agent.name":
			val = v.AgentName
		default:
			return m
		}
		val = strings.TrimSpace(val)
		if val == "" {
			val = fallback
		}
		if val == "" {
			return ""
		}
		return space + val
	})
}

// Suggestion is one shortcut as the reply box offers it: the reply chosen
// for the visitor's language, its variables filled.
type Suggestion struct {
	Shortcut string
	Language string
	Text     string
}

// Pick chooses, for each shortcut, the reply in lang, else "any", else
// English, else the first by language, and returns them by shortcut.
func Pick(replies []store.CannedReply, lang string) []store.CannedReply {
	rank := func(l string) int {
		switch l {
		case lang:
			return 0
		case AnyLanguage:
			return 1
		case "en":
			return 2
		}
		return 3
	}
	best := map[string]store.CannedReply{}
	for _, r := range replies {
		if b, ok := best[r.Shortcut]; !ok || rank(r.Language) < rank(b.Language) ||
			(rank(r.Language) == rank(b.Language) && r.Language < b.Language) {
			best[r.Shortcut] = r
		}
	}
	out := make([]store.CannedReply, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Shortcut < out[j].Shortcut })
	return out
}

// Suggestions are the account's replies for a conversation whose visitor
// speaks lang, one per shortcut, filled with v.
func (s *Service) Suggestions(ctx context.Context, accountID, lang string, v Vars) ([]Suggestion, error) {
	all, err := s.Store.CannedReplies(ctx, accountID)
	if err != nil {
		return nil, err
	}
	picked := Pick(all, lang)
	out := make([]Suggestion, len(picked))
	for i, r := range picked {
		out[i] = Suggestion{Shortcut: r.Shortcut, Language: r.Language, Text: Fill(r.Text, v)}
	}
	return out, nil
}

// ErrNoteText: a note is 1 to MaxText characters.
var ErrNoteText = domain.Invalid("note must be 1 to 2000 characters")

// Author is who writes a note.
type Author struct {
	ID   string
	Name string
}

// AddNote adds the team's private note to one of the account's
// conversations (domain.ErrNotFound for another account's) and records
// conversation.note.
func (s *Service) AddNote(ctx context.Context, accountID, conversationID string, a Author, text string) (store.Note, error) {
	text = strings.TrimSpace(text)
	if n := utf8.RuneCountInString(text); n == 0 || n > MaxText {
		return store.Note{}, ErrNoteText
	}
	n, err := s.Store.AddNote(ctx, store.NewNote{AccountID: accountID, ConversationID: conversationID,
		AuthorID: a.ID, AuthorName: a.Name, Text: text})
	if err != nil {
		return store.Note{}, err
	}
	s.Audit.Record(ctx, accountID, audit.ConversationNote, audit.Target("conversation", conversationID))
	// The team topic, not the conversation's: the visitor's long poll,
	// which waits on that one, has nothing to show of a note.
	if s.Notifier != nil {
		s.Notifier.Publish(chat.TeamTopic(conversationID))
	}
	return n, nil
}

// Notes lists a conversation's notes, oldest first.
func (s *Service) Notes(ctx context.Context, accountID, conversationID string) ([]store.Note, error) {
	return s.Store.Notes(ctx, accountID, conversationID)
}
