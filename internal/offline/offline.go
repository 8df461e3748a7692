// Package offline keeps visitors from waiting for nobody (issue 19,
// "Nobody left waiting"). It holds the rules that the chat, the
// management API, the dashboard and the job queue share:
//
//   - whether an account is "offline" now: outside its business hours
//     (internal/hours, with the injected clock) or with no operator online
//     (the presence hook, Options.OperatorsOnline);
//   - the operators' wait alerts: when a conversation starts waiting for a
//     human, one e-mail job per operator who asked for it, scheduled
//     Minutes later, that mails only if the conversation still waits;
//   - the reply mail: when an operator replies to a visitor who left an
//     address (the widget's offline form) and who is not connected (no
//     poll for AwayAfter, 60 s), a job mails them the transcript, unless
//     they came back before it ran;
//   - the CSAT ratings' report.
//
// E-mail is off when PARLEY_SMTP_URL is unset (Options.Mail nil): nothing
// is scheduled and MailEnabled says so to the dashboard. The mails and
// their language are in mail.go.
package offline

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"parley/internal/domain"
	"parley/internal/hours"
	"parley/internal/mail"
	"parley/internal/store"
)

// Store is what the rules read and write.
type Store interface {
	store.Offline
	Conversation(ctx context.Context, id string) (domain.Conversation, error)
	LatestMessages(ctx context.Context, conversationID string, before int64, limit int) (store.MessagePage, error)
	// The mails' language and time zone: the agent's configured language
	// and the visitor's browser (mail.go).
	Agent(ctx context.Context, accountID, agentID string) (domain.Agent, error)
	VisitorContext(ctx context.Context, conversationID string) (store.VisitorContext, error)
}

// Queue schedules the e-mail jobs (jobs.Queue).
type Queue interface {
	EnqueueWaitAlert(ctx context.Context, conversationID, userID string, at time.Time) error
	EnqueueReplyMail(ctx context.Context, conversationID string, at time.Time) error
}

// Options configure a Service; Store is required.
type Options struct {
	Store Store
	// Mail sends e-mail; nil: e-mail is off (PARLEY_SMTP_URL unset).
	Mail mail.Sender
	// Queue runs the sends; nil: e-mail is off.
	Queue Queue
	// OperatorsOnline counts the account's operators online now (the
	// presence of issue 19, another part). Nil: presence is unknown, and
	// only the business hours decide whether the account is offline. An
	// error counts as someone online (a visitor is never told "nobody is
	// here" because of a failed read).
	OperatorsOnline func(ctx context.Context, accountID string) (int, error)
	Now             func() time.Time // default time.Now
	Logger          *slog.Logger     // default slog.Default()
	// DashboardURL is the dashboard's public address, for links in the
	// operators' alerts; "" leaves them out.
	DashboardURL string
	// ReplyDelay is how long after an operator's reply the visitor's mail
	// is sent, so that a burst of replies is one mail. Default 1 minute.
	ReplyDelay time.Duration
	// AwayAfter: a visitor who has not polled for this long is not
	// connected. Default 60 s (a widget long-polls at least every 30 s).
	AwayAfter time.Duration
}

// Service holds the rules.
type Service struct {
	o    Options
	seen sync.Map // conversation id → time.Time of the last TouchVisitor
}

// MaxWaitAlertMinutes bounds an operator's wait alert (a day).
const MaxWaitAlertMinutes = 24 * 60

func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ReplyDelay <= 0 {
		o.ReplyDelay = time.Minute
	}
	if o.AwayAfter <= 0 {
		o.AwayAfter = 60 * time.Second
	}
	return &Service{o: o}
}

// MailEnabled reports whether e-mail is configured.
func (s *Service) MailEnabled() bool { return s != nil && s.o.Mail != nil && s.o.Queue != nil }

// Hours reads the account's business hours (zero Hours: none set,
// always open).
func (s *Service) Hours(ctx context.Context, accountID string) (hours.Hours, error) {
	raw, err := s.o.Store.BusinessHours(ctx, accountID)
	if err != nil {
		return hours.Hours{}, err
	}
	return hours.Parse(raw)
}

// SetHours validates and stores the account's business hours.
func (s *Service) SetHours(ctx context.Context, accountID string, h hours.Hours) (hours.Hours, error) {
	if err := h.Validate(); err != nil {
		return hours.Hours{}, err
	}
	if h.Days == nil {
		h.Days = []hours.Range{}
	}
	if err := s.o.Store.SetBusinessHours(ctx, accountID, h.String()); err != nil {
		return hours.Hours{}, err
	}
	return h, nil
}

// Offline reports whether a visitor asking for a person now should be
// told nobody can answer: outside the account's business hours, or no
// operator online. Failures count as "not offline".
func (s *Service) Offline(ctx context.Context, accountID string) bool {
	if s == nil {
		return false
	}
	h, err := s.Hours(ctx, accountID)
	if err != nil {
		s.o.Logger.Warn("offline: business hours", "account", accountID, "err", err)
	} else if !h.Open(s.o.Now()) {
		return true
	}
	if s.o.OperatorsOnline == nil {
		return false
	}
	n, err := s.o.OperatorsOnline(ctx, accountID)
	if err != nil {
		s.o.Logger.Warn("offline: operators online", "account", accountID, "err", err)
		return false
	}
	return n == 0
}

// WaitAlert reads the user's wait alert in minutes (0: off).
func (s *Service) WaitAlert(ctx context.Context, accountID, userID string) (int, error) {
	return s.o.Store.WaitAlert(ctx, accountID, userID)
}

// SetWaitAlert sets the user's wait alert: 0 (off) to MaxWaitAlertMinutes.
func (s *Service) SetWaitAlert(ctx context.Context, accountID, userID string, minutes int) error {
	if minutes < 0 || minutes > MaxWaitAlertMinutes {
		return domain.Invalid(fmt.Sprintf("wait_alert_minutes must be from 0 (off) to %d", MaxWaitAlertMinutes))
	}
	return s.o.Store.SetWaitAlert(ctx, accountID, userID, minutes)
}

// Rating is a conversation's rating for the dashboard; domain.ErrNotFound
// when it has none or is another account's.
func (s *Service) Rating(ctx context.Context, accountID, conversationID string) (store.Rating, error) {
	r, err := s.o.Store.Rating(ctx, conversationID)
	if err != nil {
		return store.Rating{}, err
	}
	if r.AccountID != accountID {
		return store.Rating{}, domain.ErrNotFound
	}
	return r, nil
}

// Ratings is the report of the account's ratings set in [from, to) (the
// analytics issue): their count, sum (Average) and spread.
func (s *Service) Ratings(ctx context.Context, accountID string, from, to time.Time) (store.RatingStats, error) {
	if !from.Before(to) {
		return store.RatingStats{}, domain.Invalid("from must be before to")
	}
	return s.o.Store.RatingStats(ctx, accountID, from, to)
}

// Seen records a visitor's poll, writing at most every AwayAfter/3 per
// conversation on this instance.
func (s *Service) Seen(ctx context.Context, conversationID string) {
	if s == nil {
		return
	}
	now := s.o.Now()
	if v, ok := s.seen.Load(conversationID); ok && now.Sub(v.(time.Time)) < s.o.AwayAfter/3 {
		return
	}
	s.seen.Store(conversationID, now)
	if err := s.o.Store.TouchVisitor(ctx, conversationID, now); err != nil {
		s.o.Logger.Warn("offline: touch visitor", "conversation", conversationID, "err", err)
	}
	s.prune(now)
}

// prune forgets conversations not polled for a while, once the map grows.
func (s *Service) prune(now time.Time) {
	n := 0
	s.seen.Range(func(_, _ any) bool { n++; return n <= 10_000 })
	if n <= 10_000 {
		return
	}
	s.seen.Range(func(k, v any) bool {
		if now.Sub(v.(time.Time)) >= s.o.AwayAfter {
			s.seen.Delete(k)
		}
		return true
	})
}
