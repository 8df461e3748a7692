package offline_test

import (
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/hours"
	"parley/internal/mail/mailtest"
	"parley/internal/secret"
	"parley/internal/store"
)

// The mails are written in their reader's language, with times in their
// reader's zone, and reach a real SMTP server intact (the subject's
// encoded words and the body's transfer encoding decoded by the server's
// side). The tests call the jobs themselves (no queue), at a fixed time:
// Wednesday 2026-11-25 08:00 UTC, 10:00 in Bucharest, 11:00 in Moscow.

var at = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

// agentWith adds an agent with config to the rig's account and returns
// its widget key.
func (r *rig) agentWith(t *testing.T, config string) string {
	t.Helper()
	key := secret.WidgetKey()
	if _, err := r.st.CreateAgent(r.ctx, store.NewAgent{AccountID: r.account.ID, ChatbotName: "Helper", Config: []byte(config), Key: key}); err != nil {
		t.Fatal(err)
	}
	return key
}

// onlyMail waits for the rig's one mail and checks what every mail must
// be: UTF-8 text, so that Romanian and Russian arrive as written.
func (r *rig) onlyMail(t *testing.T) mailtest.Message {
	t.Helper()
	m := r.smtp.Wait(t, 1, 20*time.Second)
	if len(m) != 1 {
		t.Fatalf("%d mails, want 1", len(m))
	}
	if !strings.Contains(m[0].Raw, "charset=UTF-8") {
		t.Errorf("the mail does not say it is UTF-8:\n%s", m[0].Raw)
	}
	return m[0]
}

func checkMail(t *testing.T, m mailtest.Message, subject string, has, hasNot []string) {
	t.Helper()
	if m.Subject != subject {
		t.Errorf("subject %q, want %q", m.Subject, subject)
	}
	for _, want := range has {
		if !strings.Contains(m.Body, want) {
			t.Errorf("the mail lacks %q:\n%s", want, m.Body)
		}
	}
	for _, not := range hasNot {
		if strings.Contains(m.Body, not) {
			t.Errorf("the mail has %q:\n%s", not, m.Body)
		}
	}
}

// The reply mail is in the widget's language when the visitor left the
// address; without it, in the agent's language, else the browser's, else
// English. Its times are in the browser's time zone.
func TestReplyMailLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		contactLang string // the widget's lang at the offline form
		agentConfig string
		browserLang string // navigator.language at init
		zone        string // the browser's time zone at init
		visitor     string // the name the visitor left
		subject     string
		has         []string
		hasNot      []string
	}{
		{name: "the widget's English", contactLang: "en", agentConfig: `{"lang":"ro"}`, browserLang: "ru-RU", visitor: "Ana",
			subject: "Your conversation with us",
			has: []string{"Hello Ana,\n\nYou asked to talk to a person. Here is our answer and the conversation so far:\n\n",
				"You (2026-11-25 08:00 UTC):\nTalk to a human\n", "Ion (2026-11-25 08:00 UTC):\nYour parcel ships on Monday.\n"}},
		{name: "the widget's Romanian", contactLang: "ro", agentConfig: `{}`, browserLang: "en-US", zone: "Europe/Bucharest", visitor: "Ana",
			subject: "Conversația dumneavoastră cu noi",
			has: []string{"Bună ziua, Ana,\n\nAți cerut să vorbiți cu o persoană. Iată răspunsul nostru și conversația de până acum:\n\n",
				"Dumneavoastră (25.11.2026 10:00 EET):\nTalk to a human\n", "Ion (25.11.2026 10:00 EET):\nYour parcel ships on Monday.\n"},
			hasNot: []string{"Hello", "You (", "UTC"}},
		{name: "the widget's Russian, no name", contactLang: "ru-RU", agentConfig: `{"lang":"en"}`, zone: "Europe/Moscow",
			subject: "Ваш разговор с нами",
			has: []string{"Здравствуйте!\n\nВы просили поговорить с человеком. Вот наш ответ и весь разговор до сих пор:\n\n",
				"Вы (25.11.2026 11:00 MSK):\nTalk to a human\n", "Ion (25.11.2026 11:00 MSK):\n"},
			hasNot: []string{"Hello", "You ("}},
		{name: "no widget language: the agent's", agentConfig: `{"lang":"ru"}`, browserLang: "ro-RO", visitor: "Ana",
			subject: "Ваш разговор с нами", has: []string{"Здравствуйте, Ana!", "Вы (25.11.2026 08:00 UTC):"}},
		{name: "no widget or agent language: the browser's", agentConfig: `{}`, browserLang: "ro-RO", zone: "Moon/Base", visitor: "Ana",
			subject: "Conversația dumneavoastră cu noi", has: []string{"Bună ziua, Ana,", "Dumneavoastră (25.11.2026 08:00 UTC):"}},
		{name: "none Parley speaks: English", agentConfig: `{}`, browserLang: "de-DE", visitor: "Ana",
			subject: "Your conversation with us", has: []string{"Hello Ana,", "You (2026-11-25 08:00 UTC):"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRigWith(t, true, false)
			r.clock.Set(at)
			key := r.agentWith(t, c.agentConfig)
			res, err := r.chat.Init(r.ctx, chat.InitInput{Key: key, Visitor: chat.VisitorInfo{Language: c.browserLang, TimeZone: c.zone}})
			if err != nil {
				t.Fatal(err)
			}
			conv := res.ConversationID
			if _, err := r.chat.Chat(r.ctx, chat.ChatInput{Key: key, ConversationID: conv, Text: "Talk to a human"}); err != nil {
				t.Fatal(err)
			}
			if err := r.chat.Contact(r.ctx, chat.ContactInput{Key: key, ConversationID: conv, Email: "ana@example.org", Name: c.visitor, Lang: c.contactLang}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.chat.OperatorReply(r.ctx, r.account.ID, conv, chat.Operator{Name: "Ion"}, "Your parcel ships on Monday."); err != nil {
				t.Fatal(err)
			}
			r.clock.Add(2 * time.Minute)
			if err := r.svc.SendReply(r.ctx, conv); err != nil {
				t.Fatal(err)
			}
			m := r.onlyMail(t)
			if len(m.To) != 1 || m.To[0] != "ana@example.org" {
				t.Errorf("to %v", m.To)
			}
			checkMail(t, m, c.subject, c.has, c.hasNot)
		})
	}
}

// The wait alert is in the operator's dashboard language; before the
// dashboard recorded one, in the agent's language, else English. Its
// times are in the account's business hours zone.
func TestWaitAlertLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		userLang    string // as the dashboard recorded it
		agentConfig string
		zone        string // the business hours' zone
		subject     string
		has         []string
		hasNot      []string
	}{
		{name: "the operator's English", userLang: "en", agentConfig: `{"lang":"ru"}`,
			subject: "A visitor is waiting for a person",
			has: []string{"A visitor has been waiting for a person for 5 min and nobody has taken the conversation.\n\n",
				"Open it: https://desk.example.com/conversations/", "Visitor (2026-11-25 08:00 UTC):\nTalk to a human\n"}},
		{name: "the operator's Romanian", userLang: "ro", agentConfig: `{"lang":"en"}`, zone: "Europe/Bucharest",
			subject: "Un vizitator așteaptă o persoană",
			has: []string{"Un vizitator așteaptă o persoană de 5 min și nimeni nu a preluat conversația.\n\n",
				"Deschide-o: https://desk.example.com/conversations/", "Vizitator (25.11.2026 10:00 EET):\nTalk to a human\n"},
			hasNot: []string{"A visitor", "Open it", "UTC"}},
		{name: "the operator's Russian", userLang: "ru", agentConfig: `{}`, zone: "Europe/Moscow",
			subject: "Посетитель ждёт человека",
			has: []string{"Посетитель ждёт человека уже 5 мин, и никто не взял разговор.\n\n",
				"Открыть: https://desk.example.com/conversations/", "Посетитель (25.11.2026 11:00 MSK):\nTalk to a human\n"},
			hasNot: []string{"A visitor", "Open it"}},
		{name: "none recorded: the agent's", agentConfig: `{"lang":"ro"}`,
			subject: "Un vizitator așteaptă o persoană", has: []string{"Vizitator (25.11.2026 08:00 UTC):"}},
		{name: "none recorded, none configured: English", agentConfig: `{}`,
			subject: "A visitor is waiting for a person", has: []string{"for 5 min", "Visitor (2026-11-25 08:00 UTC):"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRigWith(t, true, false)
			r.clock.Set(at)
			if c.zone != "" {
				if _, err := r.svc.SetHours(r.ctx, r.account.ID, hours.Hours{TimeZone: c.zone}); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.svc.SetWaitAlert(r.ctx, r.account.ID, r.owner.ID, 5); err != nil {
				t.Fatal(err)
			}
			if c.userLang != "" {
				if err := r.st.SetUserLanguage(r.ctx, r.owner.ID, c.userLang); err != nil {
					t.Fatal(err)
				}
			}
			key := r.agentWith(t, c.agentConfig)
			res, err := r.chat.Init(r.ctx, chat.InitInput{Key: key})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.chat.Chat(r.ctx, chat.ChatInput{Key: key, ConversationID: res.ConversationID, Text: "Talk to a human"}); err != nil {
				t.Fatal(err)
			}
			r.clock.Add(5 * time.Minute)
			if err := r.svc.SendWaitAlert(r.ctx, res.ConversationID, r.owner.ID); err != nil {
				t.Fatal(err)
			}
			m := r.onlyMail(t)
			if len(m.To) != 1 || m.To[0] != r.owner.Email {
				t.Errorf("to %v", m.To)
			}
			checkMail(t, m, c.subject, c.has, c.hasNot)
		})
	}
}
