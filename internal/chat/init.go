package chat

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

type InitInput struct {
	Key       string
	Origin    string // the request's Origin header, "" when none (domain.AgentConfig.CheckOrigin)
	VisitorID string // optional: a returning visitor's id
	PageURL   string // optional
	// IP is the client's address (the trusted-proxy resolver's answer),
	// for the agent's per-address limit; the zero Addr counts as one
	// unknown address.
	IP netip.Addr
	// Identity is who the page says the visitor is (identity.go); the zero
	// value for an anonymous visitor.
	Identity domain.Identity
	// Visitor is what the widget tells about the browser, for the desk's
	// visitor details (visitor.go); the zero value when nothing.
	Visitor VisitorInfo
}

type InitResult struct {
	ConversationID string
	VisitorID      string
	ChatbotName    string
	Config         json.RawMessage // public part of the agent's config
	// Verified: the visitor's user_id was verified. History is then their
	// latest earlier conversation with the agent, nil when none.
	Verified bool
	History  *History
}

// Init starts a conversation. It counts against the account's monthly
// allowance; a blocked account gets domain.ErrQuota or domain.ErrSpendCap.
// Before that, the agent's hourly limits per address and per visitor
// (package initlimit) may refuse it with a *domain.SlowDownError: then
// nothing is created and no allowance is used.
func (s *Service) Init(ctx context.Context, in InitInput) (InitResult, error) {
	if err := checkKey(in.Key); err != nil {
		return InitResult{}, err
	}
	if err := checkVisitorID(in.VisitorID); err != nil {
		return InitResult{}, err
	}
	if err := checkPageURL(in.PageURL); err != nil {
		return InitResult{}, err
	}
	if err := in.Identity.Check(); err != nil {
		return InitResult{}, err
	}
	ag, err := s.seenAgent(ctx, in.Key, in.Origin)
	if err != nil {
		return InitResult{}, err
	}
	ident, err := s.identify(ctx, ag, in.Identity)
	if err != nil {
		return InitResult{}, err
	}
	hist, err := s.history(ctx, ag, ident.UserID)
	if err != nil {
		return InitResult{}, err
	}
	if s.limits != nil {
		if err := s.limits.Admit(ctx, ag, in.IP, in.VisitorID); err != nil {
			return InitResult{}, err
		}
	}
	visitor := in.VisitorID
	if visitor == "" {
		visitor = secret.VisitorID()
	}
	var crossed []domain.UsageThreshold
	conv, err := s.store.CreateConversation(ctx, store.NewConversation{
		ID:        secret.ConversationID(),
		AgentID:   ag.ID,
		AccountID: ag.AccountID,
		VisitorID: visitor,
		PageURL:   in.PageURL,
		CreatedAt: s.now(),
		Identity:  ident,
		Crossed:   &crossed,
	})
	switch {
	case errors.Is(err, domain.ErrQuota):
		s.observer.QuotaRefused("quota")
	case errors.Is(err, domain.ErrSpendCap):
		s.observer.QuotaRefused("spend_cap")
	}
	if err != nil {
		return InitResult{}, err
	}
	s.recordVisitor(ctx, conv, in.Visitor, in.PageURL)
	s.notifier.Publish(AccountTopic(conv.AccountID)) // a new row in the inbox
	s.emitConversation(ctx, eventConversationStarted, conv, "")
	s.emitThresholds(ctx, conv.AccountID, crossed)
	if s.surges != nil {
		s.surges.Observe(conv.AccountID)
	}
	return InitResult{
		ConversationID: conv.ID,
		VisitorID:      visitor,
		ChatbotName:    ag.ChatbotName,
		Config:         ag.Config.Public(),
		Verified:       ident.Verified,
		History:        hist,
	}, nil
}
