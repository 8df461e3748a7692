// Package deskview holds the rules of the operator desk's inbox (issue 19)
// that are more than a store read: the visitor details shown beside a
// conversation and the operators' unread counts. The dashboard calls it;
// the management API can call the same methods.
package deskview

import (
	"context"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
	"parley/internal/useragent"
)

// Store is what the desk reads and writes.
type Store interface {
	store.VisitorDetails
	store.ReadMarks
}

// Service is the desk's rules over a store and a clock.
type Service struct {
	store Store
	now   func() time.Time
}

// New returns a Service; now nil is time.Now.
func New(s Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: s, now: now}
}

// Details are what the desk shows about a conversation's visitor.
type Details struct {
	store.VisitorContext
	Agent useragent.Agent // parsed from UserAgent
	// LocalTime is the visitor's clock now, in their time zone; zero when
	// the zone is unknown (none sent, or not one this server knows).
	LocalTime time.Time
	FirstSeen time.Time // their first conversation in the account
	Count     int       // their conversations in the account
}

// Details reads the visitor details of c.
func (s *Service) Details(ctx context.Context, c domain.Conversation) (Details, error) {
	v, err := s.store.VisitorContext(ctx, c.ID)
	if err != nil {
		return Details{}, err
	}
	d := Details{VisitorContext: v, Agent: useragent.Parse(v.UserAgent)}
	if v.TimeZone != "" {
		if loc, err := time.LoadLocation(v.TimeZone); err == nil {
			d.LocalTime = s.now().In(loc)
		}
	}
	if d.FirstSeen, d.Count, err = s.store.VisitorSeen(ctx, c.AccountID, c.VisitorID); err != nil {
		return Details{}, err
	}
	return d, nil
}

// Unread counts, for each conversation, the visitor's messages the user
// has not seen.
func (s *Service) Unread(ctx context.Context, userID string, conversationIDs []string) (map[string]int, error) {
	return s.store.UnreadCounts(ctx, userID, conversationIDs)
}

// Seen records that the user saw the conversation up to the message
// seq (the newest shown); 0 records nothing.
func (s *Service) Seen(ctx context.Context, userID, conversationID string, seq int64) error {
	if seq <= 0 {
		return nil
	}
	return s.store.MarkRead(ctx, userID, conversationID, seq)
}
