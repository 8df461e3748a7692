// Package privacy answers privacy requests about one widget visitor
// (issue 18): the export of everything stored about them and its
// erasure. The management API (GET /api/v1/visitors/{id}/export, DELETE
// /api/v1/visitors/{id}) and the dashboard's conversation page both call
// this service, so the two give the same JSON and delete the same rows.
package privacy

import (
	"context"
	"strconv"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/store"
)

// Service reads and erases visitors' data, one account at a time.
type Service struct {
	Store store.Visitors
	// Audit records each export and erasure (visitor.export,
	// visitor.delete) with the actor the request carries; nil records
	// nothing.
	Audit *audit.Service
}

// Export is the JSON document of a visitor's data (openapi.json's
// VisitorExport): their conversations in the account, oldest first, each
// with its whole transcript.
type Export struct {
	VisitorID     string         `json:"visitor_id"`
	Conversations []Conversation `json:"conversations"`
}

// Conversation is a conversation as the management API summarizes it,
// with its messages.
type Conversation struct {
	ID            string      `json:"id"`
	AgentID       string      `json:"agent_id"`
	VisitorID     string      `json:"visitor_id"`
	Mode          domain.Mode `json:"mode"`
	PageURL       string      `json:"page_url"`
	CreatedAt     time.Time   `json:"created_at"`
	LastMessageAt *time.Time  `json:"last_message_at"`
	LastMessage   string      `json:"last_message"`
	Waiting       bool        `json:"waiting"`
	Messages      []Message   `json:"messages"`
	// Who the visitor said they are (identity verification): user_id only
	// when verified; name and email as the page gave them, or as the
	// visitor left them on the offline form.
	UserID   string `json:"user_id"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	Verified bool   `json:"verified"`
	// What the widget told about the browser and the pages the visitor
	// was on (the operator desk's visitor details).
	VisitorDetails VisitorDetails `json:"visitor_details"`
	// When the visitor left a contact on the offline form and the
	// widget's language then ("" when never or not told), and when their
	// widget last polled; null when never.
	ContactLeftAt   *time.Time `json:"contact_left_at"`
	ContactLanguage string     `json:"contact_language"`
	LastPolledAt    *time.Time `json:"last_polled_at"`
	// The visitor's rating of the conversation (CSAT), null when none.
	Rating *Rating `json:"rating"`
}

// VisitorDetails are the browser details the widget sent at init and the
// page history; empty strings and no pages when none were stored.
type VisitorDetails struct {
	UserAgent string     `json:"user_agent"`
	Language  string     `json:"language"`
	TimeZone  string     `json:"time_zone"`
	Referrer  string     `json:"referrer"`
	Pages     []PageView `json:"pages"` // oldest first, as seen
}

// PageView is one page the visitor was on, and when.
type PageView struct {
	URL string    `json:"url"`
	At  time.Time `json:"at"`
}

// Rating is the visitor's rating: 1 to 5, an optional comment, and when
// it was last set.
type Rating struct {
	Rating  int       `json:"rating"`
	Comment string    `json:"comment"`
	RatedAt time.Time `json:"rated_at"`
}

// Message is one message as the management API shows it.
type Message struct {
	ID               string      `json:"id"`
	Role             domain.Role `json:"role"`
	Text             string      `json:"text"`
	CreatedAt        time.Time   `json:"created_at"`
	OperatorName     string      `json:"operator_name,omitempty"`
	PromptTokens     int64       `json:"prompt_tokens,omitempty"`
	CompletionTokens int64       `json:"completion_tokens,omitempty"`
	// The visitor's thumbs on an AI answer (issue 20), when they gave one.
	Helpful *bool `json:"helpful,omitempty"`
}

// Export reads everything stored about the visitor in the account. A
// visitor with no conversation in it (another account's included) is
// domain.ErrNotFound.
//
// Not in it, by decision (docs/api.md, "What the export leaves out"): the
// team's private notes (the team's working papers about the visitor, not
// data the visitor gave), the operators' read marks (how far each
// operator read: the operators' data), usage rows and usage thresholds
// (counts per account and month that name no visitor), and the audit log
// (who on the team did what; its entries name the visitor's id only as a
// target).
func (s *Service) Export(ctx context.Context, accountID, visitorID string) (Export, error) {
	data, err := s.Store.VisitorData(ctx, accountID, visitorID)
	if err != nil {
		return Export{}, err
	}
	s.Audit.Record(ctx, accountID, audit.VisitorExport, audit.Target("visitor", visitorID))
	out := Export{VisitorID: visitorID, Conversations: make([]Conversation, 0, len(data))}
	for _, vc := range data {
		c := vc.Conversation
		conv := Conversation{ID: c.ID, AgentID: c.AgentID, VisitorID: c.VisitorID, Mode: c.Mode, PageURL: c.PageURL,
			CreatedAt: c.CreatedAt, LastMessage: c.LastMessage, Waiting: c.Waiting, Messages: make([]Message, 0, len(vc.Messages)),
			UserID: c.UserID, Name: c.Name, Email: c.Email, Verified: c.Verified,
			VisitorDetails: visitorDetails(vc.Details), ContactLeftAt: timeOrNil(vc.ContactAt), ContactLanguage: vc.ContactLang, LastPolledAt: timeOrNil(vc.PolledAt)}
		conv.LastMessageAt = timeOrNil(c.LastMessageAt)
		if r := vc.Rating; r != nil {
			conv.Rating = &Rating{Rating: r.Rating, Comment: r.Comment, RatedAt: r.At.UTC()}
		}
		for _, m := range vc.Messages {
			conv.Messages = append(conv.Messages, Message{ID: strconv.FormatInt(m.Seq, 10), Role: m.Role, Text: m.Text,
				CreatedAt: m.CreatedAt, OperatorName: m.OperatorName, PromptTokens: m.Tokens.Prompt, CompletionTokens: m.Tokens.Completion, Helpful: m.Helpful})
		}
		out.Conversations = append(out.Conversations, conv)
	}
	return out, nil
}

// visitorDetails turns the store's details into the export's, pages
// oldest first like the transcript (the store reads them latest first).
func visitorDetails(v store.VisitorContext) VisitorDetails {
	d := VisitorDetails{UserAgent: v.UserAgent, Language: v.Language, TimeZone: v.TimeZone, Referrer: v.Referrer,
		Pages: make([]PageView, 0, len(v.Pages))}
	for i := len(v.Pages) - 1; i >= 0; i-- {
		d.Pages = append(d.Pages, PageView{URL: v.Pages[i].URL, At: v.Pages[i].At.UTC()})
	}
	return d
}

// timeOrNil is t, or nil (JSON null) when it is zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// Delete erases the visitor's conversations in the account with their
// messages and every other row of them — details, pages, contact and poll
// times, rating, the team's notes and read marks (store.Visitors.
// DeleteVisitor); domain.ErrNotFound like Export.
func (s *Service) Delete(ctx context.Context, accountID, visitorID string) error {
	if err := s.Store.DeleteVisitor(ctx, accountID, visitorID); err != nil {
		return err
	}
	s.Audit.Record(ctx, accountID, audit.VisitorDelete, audit.Target("visitor", visitorID))
	return nil
}
