package offline_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/hours"
	"parley/internal/jobs"
	"parley/internal/mail"
	"parley/internal/mail/mailtest"
	"parley/internal/notify"
	"parley/internal/offline"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
)

// The tests run the real pieces: a SQLite store, the job queue on it, the
// chat service, and a real SMTP server on loopback (mailtest) that the
// mails must reach. The rules' clock is the test's.

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }
func (answer) Respond(context.Context, agent.Request) (agent.Reply, error) {
	return agent.Reply{Text: "We open at 9."}, nil
}

type answer struct{}

type rig struct {
	ctx     context.Context
	st      store.Store
	clock   *clock
	svc     *offline.Service
	chat    *chat.Service
	smtp    *mailtest.Server
	account domain.Account
	owner   domain.User
	key     string
	online  int
}

func newRig(t *testing.T, withMail bool) *rig {
	t.Helper()
	return newRigWith(t, withMail, withMail)
}

// newRigWith: withMail gives the service a sender to the test's SMTP
// server; withQueue also runs the job queue, which schedules and sends
// the mails on its own (without it the test calls the jobs).
func newRigWith(t *testing.T, withMail, withQueue bool) *rig {
	t.Helper()
	ctx := t.Context()
	path := sqlitetest.Path(t)
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The clock starts in the past, so jobs scheduled "minutes later" on
	// it are due now for the queue, which runs on the real time.
	r := &rig{ctx: ctx, st: st, clock: &clock{now: time.Now().Add(-time.Hour).Truncate(time.Second)}}
	o := offline.Options{Store: st, Now: r.clock.Now, Logger: slog.New(slog.DiscardHandler), ReplyDelay: time.Second,
		DashboardURL: "https://desk.example.com/",
		OperatorsOnline: func(context.Context, string) (int, error) {
			if r.online < 0 {
				return 0, errors.New("presence down")
			}
			return r.online, nil
		}}
	if withMail {
		r.smtp = mailtest.Start(t, false)
		sender, err := mail.Parse(r.smtp.URL(mailtest.Password), "Parley Desk <desk@example.com>")
		if err != nil {
			t.Fatal(err)
		}
		o.Mail = sender.WithTLSConfig(r.smtp.ClientTLS)
	}
	if withQueue {
		q, err := jobs.Open(context.Background(), jobs.Options{DB: path, Logger: slog.New(slog.DiscardHandler), PollInterval: 50 * time.Millisecond,
			SendWaitAlert: func(ctx context.Context, c, u string) error { return r.svc.SendWaitAlert(ctx, c, u) },
			SendReplyMail: func(ctx context.Context, c string) error { return r.svc.SendReply(ctx, c) }})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Stop(context.Background()) })
		o.Queue = q
	}
	r.svc = offline.New(o)
	r.chat = chat.New(chat.Options{Store: st, Responder: answer{}, Notifier: notify.NewHub(), Now: r.clock.Now,
		Logger: slog.New(slog.DiscardHandler), Offline: r.svc})
	t.Cleanup(r.chat.Stop)
	r.account, err = st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("o", 6) + "@example.com", Name: "Owner Ana", PasswordHash: "x",
		Limits: domain.Limits{MonthlyConversations: 100}})
	if err != nil {
		t.Fatal(err)
	}
	users, err := st.Users(ctx, r.account.ID)
	if err != nil {
		t.Fatal(err)
	}
	r.owner = users[0]
	r.key = secret.WidgetKey()
	if _, err := st.CreateAgent(ctx, store.NewAgent{AccountID: r.account.ID, ChatbotName: "Helper", Config: []byte("{}"), Key: r.key}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) conversation(t *testing.T) string {
	t.Helper()
	res, err := r.chat.Init(r.ctx, chat.InitInput{Key: r.key})
	if err != nil {
		t.Fatal(err)
	}
	return res.ConversationID
}

func (r *rig) askForPerson(t *testing.T, conv string) chat.ChatResult {
	t.Helper()
	res, err := r.chat.Chat(r.ctx, chat.ChatInput{Key: r.key, ConversationID: conv, Text: "Talk to a human"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Offline is "outside business hours, or nobody online": both read with
// the injected clock and the presence hook; a failing hook never turns a
// visitor away.
func TestOfflineRule(t *testing.T) {
	t.Parallel()
	r := newRig(t, false)
	// Wednesday 2026-11-25 10:00 in Bucharest.
	r.clock.Set(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
	week := hours.Hours{Enabled: true, TimeZone: "Europe/Bucharest", Days: []hours.Range{{Day: 3, Open: "09:00", Close: "17:00"}}}
	if _, err := r.svc.SetHours(r.ctx, r.account.ID, week); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		at     time.Time
		online int
		want   bool
	}{
		{"open hours, someone online", time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC), 1, false},
		{"open hours, nobody online", time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC), 0, true},
		{"open hours, presence failing", time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC), -1, false},
		{"after hours, someone online", time.Date(2026, 11, 25, 16, 0, 0, 0, time.UTC), 2, true},
	} {
		r.clock.Set(c.at)
		r.online = c.online
		if got := r.svc.Offline(r.ctx, r.account.ID); got != c.want {
			t.Errorf("%s: Offline = %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := r.svc.SetHours(r.ctx, r.account.ID, hours.Hours{Enabled: true, TimeZone: "Moon/Base"}); err == nil {
		t.Error("an unknown zone was accepted")
	}
	got, err := r.svc.Hours(r.ctx, r.account.ID)
	if err != nil || got.String() != week.String() {
		t.Fatalf("Hours = %+v, %v", got, err)
	}
	// The chat's answer carries it.
	r.online = 0
	r.clock.Set(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
	if res := r.askForPerson(t, r.conversation(t)); !res.Offline {
		t.Fatalf("handoff with nobody online: %+v", res)
	}
	r.online = 1
	if res := r.askForPerson(t, r.conversation(t)); res.Offline {
		t.Fatalf("handoff with someone online: %+v", res)
	}
}

// The whole offline path: nobody online, the visitor asks for a person,
// leaves an address and goes; the operator's reply while the visitor is
// still there sends nothing, and the reply after they left reaches the
// SMTP server with the transcript.
func TestReplyMailReachesTheVisitor(t *testing.T) {
	t.Parallel()
	r := newRig(t, true)
	conv := r.conversation(t)
	res := r.askForPerson(t, conv)
	if !res.Offline {
		t.Fatalf("handoff: %+v", res)
	}
	if err := r.chat.Contact(r.ctx, chat.ContactInput{Key: r.key, ConversationID: conv, Email: "ana@example.org", Name: "Ana"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.chat.Poll(r.ctx, chat.PollInput{Key: r.key, ConversationID: conv}); err != nil {
		t.Fatal(err)
	}
	r.clock.Add(30 * time.Second)
	if _, err := r.chat.OperatorReply(r.ctx, r.account.ID, conv, chat.Operator{Name: "Ion"}, "First reply, while you are here"); err != nil {
		t.Fatal(err)
	}
	r.clock.Add(2 * time.Minute) // the visitor left 2.5 minutes ago
	if _, err := r.chat.OperatorReply(r.ctx, r.account.ID, conv, chat.Operator{Name: "Ion"}, "Your parcel ships on Monday."); err != nil {
		t.Fatal(err)
	}
	got := r.smtp.Wait(t, 1, 20*time.Second)
	m := got[0]
	if len(m.To) != 1 || m.To[0] != "ana@example.org" || m.Subject != "Your conversation with us" {
		t.Fatalf("mail: %+v", m)
	}
	for _, want := range []string{"Hello Ana", "You (", "Talk to a human", "First reply, while you are here", "Ion (", "Your parcel ships on Monday."} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("the mail lacks %q:\n%s", want, m.Body)
		}
	}
	time.Sleep(300 * time.Millisecond) // a second mail would have had its time
	if n := len(r.smtp.Messages()); n != 1 {
		t.Fatalf("%d mails, want 1", n)
	}
	// The visitor comes back: a job that runs now sends nothing.
	if _, err := r.chat.Poll(r.ctx, chat.PollInput{Key: r.key, ConversationID: conv}); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.SendReply(r.ctx, conv); err != nil {
		t.Fatal(err)
	}
	if n := len(r.smtp.Messages()); n != 1 {
		t.Fatalf("mailed a connected visitor: %d mails", n)
	}
}

// An operator with a wait alert is mailed about a conversation still
// waiting after their minutes; one taken over meanwhile sends nothing.
func TestWaitAlert(t *testing.T) {
	t.Parallel()
	r := newRig(t, true)
	if err := r.svc.SetWaitAlert(r.ctx, r.account.ID, r.owner.ID, 5); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.SetWaitAlert(r.ctx, r.account.ID, r.owner.ID, offline.MaxWaitAlertMinutes+1); err == nil {
		t.Fatal("a wait alert over a day passed")
	}
	if m, _ := r.svc.WaitAlert(r.ctx, r.account.ID, r.owner.ID); m != 5 {
		t.Fatalf("WaitAlert = %d", m)
	}
	conv := r.conversation(t)
	r.askForPerson(t, conv) // the alert is due at clock+5 min, which is in the past for the queue
	got := r.smtp.Wait(t, 1, 20*time.Second)[0]
	if got.To[0] != r.owner.Email || got.Subject != "A visitor is waiting for a person" ||
		!strings.Contains(got.Body, "https://desk.example.com/conversations/"+conv) || !strings.Contains(got.Body, "Talk to a human") {
		t.Fatalf("alert: %+v", got)
	}
	// Taken over: the job finds nothing to say.
	taken := r.conversation(t)
	r.askForPerson(t, taken)
	r.smtp.Wait(t, 2, 20*time.Second) // its own alert, scheduled in the past
	if _, err := r.chat.TakeOver(r.ctx, r.account.ID, taken); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.SendWaitAlert(r.ctx, taken, r.owner.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(r.smtp.Messages()); n != 2 {
		t.Fatalf("mailed about a conversation taken over: %d mails", n)
	}
}

// Without SMTP nothing is queued and MailEnabled says so; the ratings
// report averages the period.
func TestNoMailAndRatings(t *testing.T) {
	t.Parallel()
	r := newRig(t, false)
	if r.svc.MailEnabled() {
		t.Fatal("mail enabled without SMTP")
	}
	conv := r.conversation(t)
	r.askForPerson(t, conv)
	if err := r.svc.SendReply(r.ctx, conv); err != nil {
		t.Fatal(err)
	}
	if _, err := r.chat.OperatorReply(r.ctx, r.account.ID, conv, chat.Operator{Name: "Ion"}, "hi"); err != nil {
		t.Fatal(err)
	}
	if err := r.chat.Rate(r.ctx, chat.RateInput{Key: r.key, ConversationID: conv, Rating: 3}); err != nil {
		t.Fatal(err)
	}
	st, err := r.svc.Ratings(r.ctx, r.account.ID, r.clock.Now().Add(-time.Hour), r.clock.Now().Add(time.Hour))
	if err != nil || st.Count != 1 || st.Average() != 3 {
		t.Fatalf("Ratings = %+v, %v", st, err)
	}
	if _, err := r.svc.Ratings(r.ctx, r.account.ID, r.clock.Now(), r.clock.Now()); err == nil {
		t.Fatal("an empty period passed")
	}
	if got, err := r.svc.Rating(r.ctx, r.account.ID, conv); err != nil || got.Rating != 3 {
		t.Fatalf("Rating = %+v, %v", got, err)
	}
	if _, err := r.svc.Rating(r.ctx, "other-account", conv); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account's Rating: %v", err)
	}
}
