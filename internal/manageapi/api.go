// Package manageapi serves the management API for account owners under
// /api/v1: agents, widget keys, conversations, operator actions and usage.
// Every handler runs behind Auth and sees only its own account's data;
// another account's resources answer 404.
package manageapi

import (
	"net/http"

	"parley/internal/agentadmin"
	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/chat"
	"parley/internal/desk"
	"parley/internal/insights"
	"parley/internal/offline"
	"parley/internal/origins"
	"parley/internal/retention"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/internal/webhooks"
)

// Store is what the API reads from the store itself: the account behind
// a token, conversations, their messages and usage. Agents, keys and
// knowledge go through agentadmin, chat writes through chat.
type Store interface {
	store.APITokens
	store.Conversations
	store.Messages
	store.Usage
	store.Visitors
	store.AuditLog
}

type API struct {
	store   Store
	chat    *chat.Service
	agents  *agentadmin.Service // agents, widget keys and knowledge: their rules
	sources *sources.Service    // website sources: their rules; nil: the routes answer 404
	audit   *audit.Service      // the audit log; nil: nothing recorded, GET /api/v1/audit empty
	// clientIP names the client for the audit log; nil: no address.
	clientIP func(*http.Request) string
	// retention is the account's retention setting (account.go); nil:
	// the account routes answer 404.
	retention *retention.Service
	origins   *origins.Service  // the sites widgets were used from; nil: the route answers 404
	webhooks  *webhooks.Service // signed webhooks: their rules; nil: the routes answer 404
	desk      *desk.Service     // the operator desk (desk.go); nil: its routes answer 404
	canned    *canned.Service   // canned replies and private notes (issue 19); nil: the routes answer 404
	offline   *offline.Service  // business hours and ratings (offline.go); nil: the routes answer 404
	insights  *insights.Service // reports, knowledge gaps, suggestions (insights.go); nil: the routes answer 404
}

func New(s Store, c *chat.Service, agents *agentadmin.Service) *API {
	return &API{store: s, chat: c, agents: agents}
}

// WithAudit records the API's privacy requests in the audit log (the
// other actions are recorded by the services they go through), names
// the client by clientIP (nil: no address) and serves GET /api/v1/audit.
func (a *API) WithAudit(svc *audit.Service, clientIP func(*http.Request) string) *API {
	a.audit, a.clientIP = svc, clientIP
	return a
}

// WithSources serves the agents' website sources through svc.
func (a *API) WithSources(svc *sources.Service) *API {
	a.sources = svc
	return a
}
