// Package desk holds the operator desk's rules (issue 19): a
// conversation's status (open, resolved; a visitor's new message reopens
// it), its assignment (an owner's choice, or auto-assign: waiting
// conversations round-robin to operators online and under a cap) and the
// operators' presence (online while a dashboard tab sends heartbeats and
// they are not away). The dashboard and the management API call it; chat
// calls its hooks (VisitorMessage, Waiting) where those events happen.
package desk

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"time"

	"parley/internal/audit"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/store"
)

// Store is what the desk reads and writes.
type Store interface {
	store.Conversations
	store.Desk
	User(ctx context.Context, accountID, userID string) (domain.User, error)
}

// Options configure a Service; Store is required.
type Options struct {
	Store    Store
	Notifier notify.Notifier  // woken on every change; nil: none
	Audit    *audit.Service   // resolve, reopen, assign; nil: none
	Now      func() time.Time // default time.Now; tests move it
	Logger   *slog.Logger     // default slog.Default()
}

// Service is the desk's rules over a store.
type Service struct {
	o Options
}

func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Service{o: o}
}

// conversation loads a conversation of the account; another account's is
// domain.ErrNotFound.
func (s *Service) conversation(ctx context.Context, accountID, id string) (domain.Conversation, error) {
	c, err := s.o.Store.Conversation(ctx, id)
	if err == nil && c.AccountID != accountID {
		return domain.Conversation{}, domain.ErrNotFound
	}
	return c, err
}

func (s *Service) changed(accountID, conversationID string) {
	if s.o.Notifier != nil {
		s.o.Notifier.Publish(conversationID)
		s.o.Notifier.Publish(chat.AccountTopic(accountID))
	}
}

// Resolve marks the conversation resolved (it leaves the default inbox
// list and stops waiting for a human) and reports whether it changed.
func (s *Service) Resolve(ctx context.Context, accountID, conversationID string) (bool, error) {
	return s.setStatus(ctx, accountID, conversationID, domain.StatusResolved)
}

// Reopen makes a resolved conversation open again.
func (s *Service) Reopen(ctx context.Context, accountID, conversationID string) (bool, error) {
	return s.setStatus(ctx, accountID, conversationID, domain.StatusOpen)
}

func (s *Service) setStatus(ctx context.Context, accountID, id string, st domain.Status) (bool, error) {
	if _, err := s.conversation(ctx, accountID, id); err != nil {
		return false, err
	}
	changed, err := s.o.Store.SetStatus(ctx, id, st)
	if err != nil || !changed {
		return false, err
	}
	action := audit.ConversationResolve
	if st == domain.StatusOpen {
		action = audit.ConversationReopen
	}
	s.o.Audit.Record(ctx, accountID, action, audit.Target("conversation", id))
	s.changed(accountID, id)
	return true, nil
}

// VisitorMessage is chat's hook after a visitor's message is stored: a
// resolved conversation opens again (recorded as a reopen by the system).
func (s *Service) VisitorMessage(ctx context.Context, c domain.Conversation) {
	if c.Status != domain.StatusResolved {
		return
	}
	ctx = audit.WithActor(ctx, audit.Actor{Type: audit.ActorSystem, Name: "visitor message"})
	if _, err := s.setStatus(ctx, c.AccountID, c.ID, domain.StatusOpen); err != nil {
		s.o.Logger.WarnContext(ctx, "reopening a conversation failed", "conversation", c.ID, "err", err)
	}
}

// Assign hands the conversation to a user of the account (an owner's
// choice): it becomes human-handled by them, whoever held it before.
func (s *Service) Assign(ctx context.Context, accountID, conversationID, userID string) (domain.Conversation, error) {
	if _, err := s.conversation(ctx, accountID, conversationID); err != nil {
		return domain.Conversation{}, err
	}
	u, err := s.o.Store.User(ctx, accountID, userID)
	if err != nil {
		if err == domain.ErrNotFound {
			return domain.Conversation{}, domain.Invalid("user_id is not a user of this account")
		}
		return domain.Conversation{}, err
	}
	c, err := s.o.Store.Assign(ctx, conversationID, u.ID, chat.UserOperator(u).Name)
	if err != nil {
		return domain.Conversation{}, err
	}
	s.o.Audit.Record(ctx, accountID, audit.ConversationAssign, audit.Target("conversation", conversationID))
	s.changed(accountID, conversationID)
	return c, nil
}

// Operator is one operator's presence as the desk sees it now.
type Operator struct {
	store.Presence
	Online bool
}

// Operators are the account's operators who ever opened the dashboard,
// with whether each is online now.
func (s *Service) Operators(ctx context.Context, accountID string) ([]Operator, error) {
	ps, err := s.o.Store.Presences(ctx, accountID)
	if err != nil {
		return nil, err
	}
	now := s.o.Now()
	out := make([]Operator, 0, len(ps))
	for _, p := range ps {
		out = append(out, Operator{Presence: p, Online: p.Online(now)})
	}
	return out, nil
}

// OperatorsOnline is how many of the account's operators are online now:
// a dashboard tab of theirs sent a heartbeat within store.PresenceWindow
// and they are not away. The widget's offline mode asks it.
func (s *Service) OperatorsOnline(ctx context.Context, accountID string) (int, error) {
	ops, err := s.Operators(ctx, accountID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, o := range ops {
		if o.Online {
			n++
		}
	}
	return n, nil
}

// Heartbeat records that the user's dashboard is open. A user who comes
// online (was not seen within the window, and is not away) is offered the
// waiting conversations when the account auto-assigns.
func (s *Service) Heartbeat(ctx context.Context, accountID, userID string) error {
	now := s.o.Now()
	before, err := s.o.Store.Heartbeat(ctx, accountID, userID, now)
	if err != nil {
		return err
	}
	if !before.Away && !before.Online(now) {
		s.AssignWaiting(ctx, accountID)
	}
	return nil
}

// SetAway sets the user away (not online however many tabs are open) or
// back; coming back offers them the waiting conversations.
func (s *Service) SetAway(ctx context.Context, accountID, userID string, away bool) error {
	if err := s.o.Store.SetAway(ctx, accountID, userID, away, s.o.Now()); err != nil {
		return err
	}
	if !away {
		s.AssignWaiting(ctx, accountID)
	}
	return nil
}

// Away reports whether the user set themselves away.
func (s *Service) Away(ctx context.Context, accountID, userID string) (bool, error) {
	ps, err := s.o.Store.Presences(ctx, accountID)
	if err != nil {
		return false, err
	}
	for _, p := range ps {
		if p.UserID == userID {
			return p.Away, nil
		}
	}
	return false, nil
}

// Settings are the account's assignment settings.
func (s *Service) Settings(ctx context.Context, accountID string) (store.DeskSettings, error) {
	return s.o.Store.DeskSettings(ctx, accountID)
}

// SetSettings changes them; turning auto-assign on assigns what waits.
func (s *Service) SetSettings(ctx context.Context, accountID string, d store.DeskSettings) error {
	if err := s.o.Store.SetDeskSettings(ctx, accountID, d); err != nil {
		return err
	}
	s.AssignWaiting(ctx, accountID)
	return nil
}

// Waiting is chat's hook after a conversation began waiting for a human:
// with auto-assign on, it goes to the next operator online.
func (s *Service) Waiting(ctx context.Context, c domain.Conversation) {
	d, err := s.o.Store.DeskSettings(ctx, c.AccountID)
	if err != nil {
		s.o.Logger.WarnContext(ctx, "reading desk settings failed", "account", c.AccountID, "err", err)
		return
	}
	if !d.AutoAssign {
		return
	}
	ops, err := s.candidates(ctx, c.AccountID, d)
	if err != nil {
		s.o.Logger.WarnContext(ctx, "reading presence failed", "account", c.AccountID, "err", err)
		return
	}
	s.autoAssign(ctx, c, d, ops)
}

// waitingBatch is how many waiting conversations one AssignWaiting looks at.
const waitingBatch = store.MaxPage

// AssignWaiting gives the account's waiting conversations (up to
// waitingBatch, longest waiting first) to the operators online, when the
// account auto-assigns. It returns how many it assigned. Failures are
// logged: the next heartbeat or wait tries again.
func (s *Service) AssignWaiting(ctx context.Context, accountID string) int {
	d, err := s.o.Store.DeskSettings(ctx, accountID)
	if err != nil || !d.AutoAssign {
		return 0
	}
	ops, err := s.candidates(ctx, accountID, d)
	if err != nil || len(ops) == 0 {
		return 0
	}
	yes := true
	page, err := s.o.Store.Conversations(ctx, accountID, store.ConversationFilter{
		Mode: domain.ModeAI, Waiting: &yes, Status: domain.StatusOpen, Order: store.ByWaiting, Limit: waitingBatch,
	})
	if err != nil {
		s.o.Logger.WarnContext(ctx, "listing waiting conversations failed", "account", accountID, "err", err)
		return 0
	}
	n := 0
	for _, c := range page.Conversations {
		if len(ops) == 0 {
			break
		}
		var ok bool
		ops, ok = s.autoAssign(ctx, c, d, ops)
		if ok {
			n++
		}
	}
	return n
}

// candidates are the operators auto-assign may choose: online and under
// the cap, in round-robin order (the longest since their last automatic
// assignment first; ties by id).
func (s *Service) candidates(ctx context.Context, accountID string, d store.DeskSettings) ([]store.Presence, error) {
	ps, err := s.o.Store.Presences(ctx, accountID)
	if err != nil {
		return nil, err
	}
	now := s.o.Now()
	ps = slices.DeleteFunc(ps, func(p store.Presence) bool {
		return !p.Online(now) || (d.Cap > 0 && p.Open >= d.Cap)
	})
	order(ps)
	return ps, nil
}

func order(ps []store.Presence) {
	slices.SortStableFunc(ps, func(a, b store.Presence) int {
		return cmp.Or(a.LastAssigned.Compare(b.LastAssigned), cmp.Compare(a.UserID, b.UserID))
	})
}

// autoAssign offers c to the operators in order until one gets it or it no
// longer waits; it returns the operators as they are after (the one who
// got it moved last, or dropped at the cap; those found full dropped).
func (s *Service) autoAssign(ctx context.Context, c domain.Conversation, d store.DeskSettings, ops []store.Presence) ([]store.Presence, bool) {
	for len(ops) > 0 {
		p := ops[0]
		now := s.o.Now()
		out, err := s.o.Store.AutoAssign(ctx, c.ID, p.UserID, p.Name, d.Cap, now)
		if err != nil {
			s.o.Logger.WarnContext(ctx, "auto-assign failed", "conversation", c.ID, "err", err)
			return ops, false
		}
		switch out {
		case store.NotWaiting:
			return ops, false
		case store.OperatorFull:
			ops = ops[1:]
			continue
		}
		actx := audit.WithActor(ctx, audit.Actor{Type: audit.ActorSystem, Name: "auto-assign"})
		s.o.Audit.Record(actx, c.AccountID, audit.ConversationAssign, audit.Target("conversation", c.ID))
		s.changed(c.AccountID, c.ID)
		p.Open++
		p.LastAssigned = now
		ops = ops[1:]
		if d.Cap == 0 || p.Open < d.Cap {
			ops = append(ops, p)
			order(ops)
		}
		return ops, true
	}
	return ops, false
}
