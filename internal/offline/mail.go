package offline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/internal/domain"
	"parley/internal/mail"
	"parley/internal/store"
	"parley/web/i18n"
)

// The e-mails of "nobody left waiting": the hooks that schedule them
// (Waiting, Replied), the jobs that send them (SendWaitAlert, SendReply)
// and their texts, in the reader's language from the message catalogues
// (web/i18n, keys mail.*), with times in the reader's time zone.
//
// Which language (docs/dashboard.md, "Nobody left waiting"):
//   - the reply mail, the visitor's: the widget's language when they left
//     the address (store.ContactGiven.Lang), else the agent's configured
//     language, else the browser's language when Parley speaks it, else
//     English. The order is the widget's own (the page's language before
//     the browser's): the agent's language stands for the page's.
//   - the wait alert, the operator's: the language they last used the
//     dashboard in (store.WaitAlert.Lang, recorded at sign-in and at the
//     language switch), else the agent's language, else English.
//
// Times are in the visitor's browser time zone (the reply) or the
// account's business hours zone (the alert), else UTC, with the zone's
// abbreviation, in the language's date layout (mail.time).

// transcriptMessages bounds the transcript in a mail.
const transcriptMessages = 100

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
	_, want, err := s.wantsMail(ctx, conv)
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
// polled for AwayAfter. It returns what they left.
func (s *Service) wantsMail(ctx context.Context, conv domain.Conversation) (store.ContactGiven, bool, error) {
	if conv.Email == "" {
		return store.ContactGiven{}, false, nil
	}
	given, err := s.o.Store.VisitorContact(ctx, conv.ID)
	if err != nil || given.At.IsZero() {
		return given, false, err
	}
	seen, err := s.o.Store.VisitorPolledAt(ctx, conv.ID)
	if err != nil {
		return given, false, err
	}
	return given, s.o.Now().Sub(seen) >= s.o.AwayAfter, nil
}

// SendWaitAlert is the wait-alert job: it mails the operator if the
// conversation still waits for a human. A conversation or user gone
// sends nothing.
func (s *Service) SendWaitAlert(ctx context.Context, conversationID, userID string) error {
	conv, ok, err := s.jobConversation(ctx, conversationID)
	if !ok || !conv.Waiting || conv.Mode == domain.ModeHuman {
		return err
	}
	alerts, err := s.o.Store.WaitAlerts(ctx, conv.AccountID)
	if err != nil {
		return err
	}
	for _, a := range alerts {
		if a.UserID != userID {
			continue
		}
		w := newWriter(firstKnown(a.Lang, s.agentLang(ctx, conv)), s.accountZone(ctx, conv.AccountID))
		waited := int(s.o.Now().Sub(conv.WaitingSince).Round(time.Minute) / time.Minute)
		w.line("mail.alert.waiting", w.text("wait.minutes", waited))
		w.blank()
		if s.o.DashboardURL != "" {
			w.line("mail.alert.open", strings.TrimRight(s.o.DashboardURL, "/")+"/conversations/"+conv.ID)
			w.blank()
		}
		visitor := w.text("mail.who.visitor")
		if conv.Name != "" {
			visitor = conv.Name
		}
		if err := s.transcript(ctx, w, conv, visitor); err != nil {
			return err
		}
		return s.o.Mail.Send(ctx, mail.Message{To: a.Email, ToName: a.Name,
			Subject: w.text("mail.alert.subject"), Text: w.String(), ReplyTo: conv.Email})
	}
	return nil // the alert was turned off meanwhile
}

// SendReply is the reply-mail job: it mails the visitor the transcript if
// they still are not connected.
func (s *Service) SendReply(ctx context.Context, conversationID string) error {
	conv, ok, err := s.jobConversation(ctx, conversationID)
	if !ok {
		return err
	}
	given, want, err := s.wantsMail(ctx, conv)
	if err != nil || !want {
		return err
	}
	browser, err := s.o.Store.VisitorContext(ctx, conv.ID)
	if err != nil {
		s.o.Logger.Warn("offline: visitor context", "conversation", conv.ID, "err", err)
	}
	w := newWriter(firstKnown(given.Lang, s.agentLang(ctx, conv), browser.Language), zone(browser.TimeZone))
	if name := strings.TrimSpace(conv.Name); name != "" {
		w.line("mail.reply.helloname", name)
	} else {
		w.line("mail.reply.hello")
	}
	w.blank()
	w.line("mail.reply.intro")
	w.blank()
	if err := s.transcript(ctx, w, conv, w.text("mail.who.you")); err != nil {
		return err
	}
	return s.o.Mail.Send(ctx, mail.Message{To: conv.Email, ToName: conv.Name, Subject: w.text("mail.reply.subject"), Text: w.String()})
}

// jobConversation is what a mail job starts from: the conversation, with
// ok false when there is nothing to send (e-mail off, the conversation
// gone) or err to retry the job on.
func (s *Service) jobConversation(ctx context.Context, id string) (domain.Conversation, bool, error) {
	if s.o.Mail == nil {
		return domain.Conversation{}, false, nil
	}
	conv, err := s.o.Store.Conversation(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Conversation{}, false, nil
	}
	return conv, err == nil, err
}

// transcript writes the conversation's latest messages, oldest first, one
// block each: who and when, then the text.
func (s *Service) transcript(ctx context.Context, w *writer, conv domain.Conversation, visitor string) error {
	page, err := s.o.Store.LatestMessages(ctx, conv.ID, 0, transcriptMessages)
	if err != nil {
		return err
	}
	for _, m := range page.Messages {
		who := visitor
		switch m.Role {
		case domain.RoleAI:
			who = w.text("mail.who.assistant")
		case domain.RoleOperator:
			who = m.OperatorName
			if who == "" { // a takeover through the API names nobody
				who = w.text("mail.who.operator")
			}
		}
		fmt.Fprintf(w, "%s (%s):\n%s\n\n", who, w.time(m.CreatedAt), m.Text)
	}
	return nil
}

// agentLang is the conversation's agent's configured language, "" when
// none or unreadable (a mail in a fallback language beats no mail).
func (s *Service) agentLang(ctx context.Context, conv domain.Conversation) string {
	ag, err := s.o.Store.Agent(ctx, conv.AccountID, conv.AgentID)
	if err != nil {
		if !errors.Is(err, domain.ErrNotFound) {
			s.o.Logger.Warn("offline: agent", "conversation", conv.ID, "err", err)
		}
		return ""
	}
	return ag.Config.Lang
}

// accountZone is the account's business hours time zone, UTC when none.
func (s *Service) accountZone(ctx context.Context, accountID string) *time.Location {
	h, err := s.Hours(ctx, accountID)
	if err != nil {
		s.o.Logger.Warn("offline: business hours", "account", accountID, "err", err)
		return time.UTC
	}
	return zone(h.TimeZone)
}

// zone loads an IANA time zone name, UTC when it is empty or unknown.
func zone(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// firstKnown is the first of langs that Parley speaks, a tag reduced to
// its base language ("ro-RO" is ro); English when none is.
func firstKnown(langs ...string) string {
	for _, l := range langs {
		if base, ok := i18n.Base(l); ok {
			return base
		}
	}
	return "en"
}

// writer builds a mail's text in one language and time zone.
type writer struct {
	strings.Builder
	lang string
	loc  *time.Location
}

func newWriter(lang string, loc *time.Location) *writer {
	return &writer{lang: lang, loc: loc}
}

// text is the catalogue's text of key in the writer's language, its verbs
// filled with args.
func (w *writer) text(key string, args ...any) string {
	if len(args) == 0 {
		return i18n.Text(w.lang, key)
	}
	return fmt.Sprintf(i18n.Text(w.lang, key), args...)
}

// line writes text(key, args...) and a line break.
func (w *writer) line(key string, args ...any) {
	w.WriteString(w.text(key, args...))
	w.WriteByte('\n')
}

func (w *writer) blank() { w.WriteByte('\n') }

// time is t in the writer's zone and the language's layout (mail.time,
// a Go time layout ending in the zone's abbreviation).
func (w *writer) time(t time.Time) string { return t.In(w.loc).Format(w.text("mail.time")) }
