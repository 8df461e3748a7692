package chat

import (
	"context"
	"strings"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/mail"
	"parley/internal/store"
)

// Offline is what the chat tells and asks of the "nobody left waiting"
// rules (offline.Service, issue 19). Nil in Options: no offline answers,
// alerts or reply mails.
type Offline interface {
	// Offline: a visitor asking for a person now should be told that
	// nobody can answer (outside business hours or nobody online).
	Offline(ctx context.Context, accountID string) bool
	// Seen is told of each visitor poll (whether the visitor is connected).
	Seen(ctx context.Context, conversationID string)
	// Waiting is told that the conversation started waiting for a human.
	Waiting(ctx context.Context, conv domain.Conversation)
	// Replied is told of an operator's reply in the conversation.
	Replied(ctx context.Context, conv domain.Conversation)
}

// Limits of the widget's offline form and rating.
const (
	MaxContactName = 100
	MaxRateComment = 1000
)

// ContactInput is the widget's offline form: the address (required) and
// name (optional) a visitor leaves so the team can answer later, and the
// language the widget speaks (optional, as chat's lang): the reply mail
// is written in it.
type ContactInput struct {
	Key, ConversationID, Origin string
	VisitorID                   string // optional; when sent it must be the conversation's visitor
	Email, Name                 string
	Lang                        string // optional; "" when the widget did not say
}

// Contact stores the visitor's address and name on the conversation as
// given by the visitor (not verified; a verified identity is kept).
func (s *Service) Contact(ctx context.Context, in ContactInput) error {
	conv, err := s.widgetConversation(ctx, in.Key, in.Origin, in.ConversationID, in.VisitorID)
	if err != nil {
		return err
	}
	email := strings.TrimSpace(in.Email)
	if email == "" {
		return domain.Invalid("email is required")
	}
	if !mail.ValidAddress(email) {
		return domain.Invalid("email is not a valid e-mail address")
	}
	name := strings.TrimSpace(in.Name)
	if utf8.RuneCountInString(name) > MaxContactName {
		return domain.Invalid("name is longer than 100 characters")
	}
	if err := checkPlain("name", name); err != nil {
		return err
	}
	lang := ""
	if in.Lang != "" {
		if lang, err = NormalizeLang(in.Lang); err != nil {
			return err
		}
	}
	if err := s.store.SetVisitorContact(ctx, conv.ID, store.NewContact{Name: name, Email: email, Lang: lang, At: s.now()}); err != nil {
		return err
	}
	s.changed(conv.AccountID, conv.ID)
	return nil
}

// RateInput is the widget's CSAT answer.
type RateInput struct {
	Key, ConversationID, Origin string
	VisitorID                   string
	Rating                      int
	Comment                     string
}

// ErrNotRatable: only a conversation a person answered can be rated.
var ErrNotRatable = domain.Invalid("only a conversation an operator answered can be rated")

// Rate stores the visitor's rating (1–5, optional comment) of a
// conversation an operator answered; rating again replaces it.
func (s *Service) Rate(ctx context.Context, in RateInput) error {
	conv, err := s.widgetConversation(ctx, in.Key, in.Origin, in.ConversationID, in.VisitorID)
	if err != nil {
		return err
	}
	if in.Rating < 1 || in.Rating > 5 {
		return domain.Invalid("rating must be a whole number from 1 to 5")
	}
	comment := strings.TrimSpace(in.Comment)
	if utf8.RuneCountInString(comment) > MaxRateComment {
		return domain.Invalid("comment is longer than 1000 characters")
	}
	if !utf8.ValidString(comment) {
		return domain.Invalid("comment is not valid UTF-8")
	}
	ops, err := s.store.MessagesAfter(ctx, conv.ID, domain.RoleOperator, 0, 1)
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		return ErrNotRatable
	}
	return s.store.SetRating(ctx, store.Rating{ConversationID: conv.ID, Rating: in.Rating, Comment: comment, At: s.now()})
}

// AskRating is whether the widget should offer the rating: a person
// answered the conversation and no longer handles it — handed back to the
// AI, or resolved on the desk (which keeps the mode human and the
// assignee). A visitor message that reopens a resolved conversation
// withdraws the offer while a person still handles it: the conversation
// goes on, and it is offered again when resolved or handed back.
func AskRating(st store.PollState) bool {
	return st.LastOperatorSeq > 0 && (st.Mode != domain.ModeHuman || st.Status == domain.StatusResolved)
}

func (s *Service) widgetConversation(ctx context.Context, key, origin, id, visitorID string) (domain.Conversation, error) {
	if err := checkKey(key); err != nil {
		return domain.Conversation{}, err
	}
	if id == "" {
		return domain.Conversation{}, domain.Invalid("conversation_id is required")
	}
	if err := checkVisitorID(visitorID); err != nil {
		return domain.Conversation{}, err
	}
	_, conv, err := s.conversation(ctx, key, origin, id)
	if err != nil {
		return domain.Conversation{}, err
	}
	if visitorID != "" && visitorID != conv.VisitorID {
		return domain.Conversation{}, domain.ErrConversationInvalid
	}
	return conv, nil
}

// checkPlain refuses control characters and invalid UTF-8 in a one-line
// field.
func checkPlain(field, v string) error {
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return domain.Invalid(field + " must be one line of text")
	}
	return nil
}

// offlineSeen, offlineWaiting, offlineReplied and isOffline call the hook
// when there is one.
func (s *Service) offlineSeen(ctx context.Context, convID string) {
	if s.offline != nil {
		s.offline.Seen(ctx, convID)
	}
}

func (s *Service) offlineWaiting(ctx context.Context, conv domain.Conversation) {
	if s.offline != nil {
		s.offline.Waiting(context.WithoutCancel(ctx), conv)
	}
}

func (s *Service) offlineReplied(ctx context.Context, conv domain.Conversation) {
	if s.offline != nil {
		s.offline.Replied(context.WithoutCancel(ctx), conv)
	}
}

func (s *Service) isOffline(ctx context.Context, accountID string) bool {
	return s.offline != nil && s.offline.Offline(ctx, accountID)
}
