// Package audit keeps each account's log of who did what (issue 18):
// takeovers, releases, replies, exports and deletions of visitor data,
// key rotations, settings, team changes, sign-ins.
//
// An entry is recorded by the service that owns the action's rule (chat,
// agentadmin, sources, the dashboard's auth and team), never by a handler,
// so the management API and the dashboard are logged alike. Who did it
// comes from the request's context: each front door's authentication puts
// an Actor there (WithActor), and Record reads it.
//
// Adding an action is one line: a constant below and a Record call where
// its rule lives.
package audit

import (
	"context"
	"log/slog"
	"time"

	"parley/internal/store"
)

// The actions, the one list of them. Names are "object.verb".
const (
	ConversationTakeover = "conversation.takeover" // an operator or the API took the conversation from the AI
	ConversationRelease  = "conversation.release"  // handed back to the AI
	ConversationReply    = "conversation.reply"    // an operator's message
	ConversationNote     = "conversation.note"     // a private note for the team (issue 19)

	CannedCreate = "canned.create" // a canned reply added
	CannedUpdate = "canned.update"
	CannedDelete = "canned.delete"

	// The operator desk (issue 19), recorded by internal/desk.
	ConversationResolve = "conversation.resolve" // marked resolved
	ConversationReopen  = "conversation.reopen"  // opened again (by an operator, or by the system on a visitor's message)
	ConversationAssign  = "conversation.assign"  // given to an operator (by an owner, or by the system's auto-assign)

	VisitorExport = "visitor.export" // everything stored about a visitor was read
	VisitorDelete = "visitor.delete" // ... and erased

	AgentCreate = "agent.create"
	AgentUpdate = "agent.update" // name, config or settings

	KnowledgeCreate = "knowledge.create"
	KnowledgeUpdate = "knowledge.update"
	KnowledgeDelete = "knowledge.delete"

	KeyRotate     = "key.rotate"
	KeyActivate   = "key.activate"
	KeyDeactivate = "key.deactivate"

	IdentitySecretRotate = "identity_secret.rotate" // an agent's identity secret replaced (old user_hash values stop working)

	SourceCreate = "source.create"
	SourceDelete = "source.delete"

	WebhookCreate = "webhook.create" // a signed webhook endpoint registered
	WebhookDelete = "webhook.delete" // ... removed with its delivery log
	WebhookTest   = "webhook.test"   // a test event sent to an endpoint

	TokenCreate = "token.create"
	TokenRevoke = "token.revoke"

	UserCreate = "user.create" // a team member added
	UserDelete = "user.delete" // ... removed

	AccountSignin       = "account.signin"        // a dashboard sign-in
	AccountSigninFailed = "account.signin_failed" // a wrong password for a user of the account
	AccountPassword     = "account.password"      // a user changed their password
	AccountRetention    = "account.retention"     // the data retention setting changed
)

// Actor types.
const (
	ActorUser     = "user"      // a dashboard user: ID is theirs, Name their email
	ActorAPIToken = "api_token" // the management API: ID is the token's, Name its name
	ActorSystem   = "system"    // no request behind it
)

// Actor is who acts: a dashboard user, an API token or the system.
type Actor struct {
	Type string
	ID   string
	Name string // what the log shows: a user's email, a token's name
	IP   string // the client's address when the request had one
}

type actorKey struct{}

// WithActor is ctx carrying who acts in it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf is the actor ctx carries; the system when none.
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Type: ActorSystem, Name: "system"}
}

// Target names an object as "kind:id", the form every entry's target has
// ("conversation:cv_1", "agent:ag_1", "key:pk_…", "visitor:v_1").
func Target(kind, id string) string { return kind + ":" + id }

// DefaultKeep is how long entries are kept: a year. Each write deletes the
// account's entries older than that, so the log stays bounded without a
// job of its own.
const DefaultKeep = 365 * 24 * time.Hour

// writeTimeout bounds one write: a store that does not answer delays the
// action this long at most, then the entry is given up (and logged).
const writeTimeout = 5 * time.Second

// Options configure a Service; Store is required.
type Options struct {
	Store  store.AuditLog
	Now    func() time.Time // default time.Now
	Keep   time.Duration    // default DefaultKeep; negative: forever
	Logger *slog.Logger     // default slog.Default()
}

// Service records and lists entries. A nil *Service records nothing, so
// services built without one (tests, tools) need no checks.
type Service struct {
	o Options
}

func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Keep == 0 {
		o.Keep = DefaultKeep
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Service{o: o}
}

// Record logs that ctx's actor did action on target in the account. It is
// called after the action succeeded, and it never fails the action: the
// action happened, and refusing it now would undo nothing. A write that
// fails or takes longer than writeTimeout is logged as an error (with
// everything the entry held, so the operator's log keeps it), and the
// caller goes on. The write does not follow the request's cancellation: a
// client that hangs up after the action still leaves its entry.
func (s *Service) Record(ctx context.Context, accountID, action, target string) {
	if s == nil || accountID == "" {
		return
	}
	a := ActorOf(ctx)
	now := s.o.Now()
	e := store.AuditEntry{
		AccountID: accountID, At: now, ActorType: a.Type, ActorID: a.ID, Actor: a.Name, IP: a.IP,
		Action: action, Target: target,
	}
	var keepAfter time.Time
	if s.o.Keep > 0 {
		keepAfter = now.Add(-s.o.Keep)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if _, err := s.o.Store.AddAuditEntry(wctx, e, keepAfter); err != nil {
		s.o.Logger.Error("audit entry not written", "err", err, "account", accountID, "action", action,
			"target", target, "actor_type", a.Type, "actor_id", a.ID, "actor", a.Name, "ip", a.IP)
	}
}

// Filter pages List.
type Filter struct {
	Before int64 // entries older than this one (its Seq); 0: the newest
	Limit  int   // clamped to [1, store.MaxAuditPageSize]; 0: store.AuditPageSize
	Action string
}

// Page is one page of entries, newest first; Next is the Before of the
// next page, 0 when this is the last.
type Page struct {
	Entries []store.AuditEntry
	Next    int64
}

// List reads a page of the account's entries, newest first.
func (s *Service) List(ctx context.Context, accountID string, f Filter) (Page, error) {
	if s == nil {
		return Page{Entries: []store.AuditEntry{}}, nil
	}
	limit := store.AuditLimit(f.Limit)
	// One more than asked tells whether a next page exists.
	es, err := s.o.Store.AuditEntries(ctx, accountID, store.AuditFilter{Before: f.Before, Limit: limit + 1, Action: f.Action})
	if err != nil {
		return Page{}, err
	}
	p := Page{Entries: es}
	if len(es) > limit {
		p.Entries = es[:limit]
		p.Next = es[limit-1].Seq
	}
	return p, nil
}
