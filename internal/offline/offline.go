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
// is scheduled and MailEnabled says so to the dashboard.
package offline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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

// transcriptMessages bounds the transcript in a mail.
const transcriptMessages = 100

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

// Waiting is told that a conversation started waiting for a human: each
// operator with a wait alert gets a job at their minutes. The hooks
// (Offline, Seen, Waiting, Replied) do nothing on a nil *Service, so a
// nil one may be handed to chat.Options.
func (s *Service) Waiting(ctx context.Context, conv domain.Conversation) {
	if !s.MailEnabled() {
		return
	}
	alerts, err := s.o.Store.WaitAlerts(ctx, conv.AccountID)
	if err != nil {
		s.o.Logger.Warn("offline: wait alerts", "account", conv.AccountID, "err", err)
		return
	}
	now := s.o.Now()
	for _, a := range alerts {
		if err := s.o.Queue.EnqueueWaitAlert(ctx, conv.ID, a.UserID, now.Add(time.Duration(a.Minutes)*time.Minute)); err != nil {
			s.o.Logger.Warn("offline: enqueue wait alert", "conversation", conv.ID, "err", err)
		}
	}
}

// Replied is told of an operator's reply: a visitor who left an address
// and is not connected gets it by mail (after ReplyDelay).
func (s *Service) Replied(ctx context.Context, conv domain.Conversation) {
	if !s.MailEnabled() {
		return
	}
	want, err := s.wantsMail(ctx, conv)
	if err != nil {
		s.o.Logger.Warn("offline: reply mail", "conversation", conv.ID, "err", err)
		return
	}
	if want {
		if err := s.o.Queue.EnqueueReplyMail(ctx, conv.ID, s.o.Now().Add(s.o.ReplyDelay)); err != nil {
			s.o.Logger.Warn("offline: enqueue reply mail", "conversation", conv.ID, "err", err)
		}
	}
}

// wantsMail: the visitor left an address (the offline form; a verified
// visitor's verified address stands in for the one typed) and has not
// polled for AwayAfter.
func (s *Service) wantsMail(ctx context.Context, conv domain.Conversation) (bool, error) {
	if conv.Email == "" {
		return false, nil
	}
	given, err := s.o.Store.VisitorContact(ctx, conv.ID)
	if err != nil || given.IsZero() {
		return false, err
	}
	seen, err := s.o.Store.VisitorPolledAt(ctx, conv.ID)
	if err != nil {
		return false, err
	}
	return s.o.Now().Sub(seen) >= s.o.AwayAfter, nil
}

// SendWaitAlert is the wait-alert job: it mails the operator if the
// conversation still waits for a human. A conversation or user gone
// sends nothing.
func (s *Service) SendWaitAlert(ctx context.Context, conversationID, userID string) error {
	if s.o.Mail == nil {
		return nil
	}
	conv, err := s.o.Store.Conversation(ctx, conversationID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !conv.Waiting || conv.Mode == domain.ModeHuman {
		return nil
	}
	alerts, err := s.o.Store.WaitAlerts(ctx, conv.AccountID)
	if err != nil {
		return err
	}
	for _, a := range alerts {
		if a.UserID != userID {
			continue
		}
		var b strings.Builder
		waited := s.o.Now().Sub(conv.WaitingSince).Round(time.Minute)
		fmt.Fprintf(&b, "A visitor has been waiting for a person for %s and nobody has taken the conversation.\n\n", waited)
		if s.o.DashboardURL != "" {
			fmt.Fprintf(&b, "Open it: %s/conversations/%s\n\n", strings.TrimRight(s.o.DashboardURL, "/"), conv.ID)
		}
		visitor := "Visitor"
		if conv.Name != "" {
			visitor = conv.Name
		}
		if err := s.transcript(ctx, &b, conv, visitor); err != nil {
			return err
		}
		return s.o.Mail.Send(ctx, mail.Message{To: a.Email, ToName: a.Name,
			Subject: "A visitor is waiting for a person", Text: b.String(), ReplyTo: conv.Email})
	}
	return nil // the alert was turned off meanwhile
}

// SendReply is the reply-mail job: it mails the visitor the transcript if
// they still are not connected.
func (s *Service) SendReply(ctx context.Context, conversationID string) error {
	if s.o.Mail == nil {
		return nil
	}
	conv, err := s.o.Store.Conversation(ctx, conversationID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	want, err := s.wantsMail(ctx, conv)
	if err != nil || !want {
		return err
	}
	var b strings.Builder
	b.WriteString("Hello" + nameSuffix(conv.Name) + ",\n\nyou asked to talk to a person. Here is our answer and the conversation so far:\n\n")
	if err := s.transcript(ctx, &b, conv, "You"); err != nil {
		return err
	}
	return s.o.Mail.Send(ctx, mail.Message{To: conv.Email, ToName: conv.Name, Subject: "Your conversation with us", Text: b.String()})
}

func nameSuffix(n string) string {
	if n = strings.TrimSpace(n); n == "" {
		return ""
	}
	return " " + n
}

// transcript writes the conversation's latest messages, oldest first, one
// block each: who and when, then the text.
func (s *Service) transcript(ctx context.Context, b *strings.Builder, conv domain.Conversation, visitor string) error {
	page, err := s.o.Store.LatestMessages(ctx, conv.ID, 0, transcriptMessages)
	if err != nil {
		return err
	}
	for _, m := range page.Messages {
		who := visitor
		switch m.Role {
		case domain.RoleAI:
			who = "Assistant"
		case domain.RoleOperator:
			who = m.OperatorName
		}
		fmt.Fprintf(b, "%s (%s UTC):\n%s\n\n", who, m.CreatedAt.UTC().Format("2006-01-02 15:04"), m.Text)
	}
	return nil
}
