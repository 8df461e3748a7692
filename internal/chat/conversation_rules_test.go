package chat

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/domain"
	"parley/web/i18n"
)

// These tests talk to the real knowledge-base agent with the demo agent's
// knowledge, as a newcomer does on a default start (issue 16): small talk
// gets a friendly reply and never counts as a miss, questions about
// operators are answered, and only a request for a person hands over.

func newDemoFixture(t *testing.T) *fixture {
	return newFixture(t, fixtureOptions{knowledgeBase: true, knowledge: demo.Knowledge})
}

func (f *fixture) chatIn(conv, text, lang string) ChatResult {
	f.t.Helper()
	res, err := f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: text, Lang: lang})
	if err != nil {
		f.t.Fatalf("Chat(%q): %v", text, err)
	}
	return res
}

// Greetings, thanks, goodbyes, "are you a bot?", "ok", a bare yes or no —
// with and without diacritics, with typos — get small talk's own reply in
// the visitor's language, and a whole conversation of them neither counts
// a miss nor puts the visitor in the human queue.
func TestSmallTalkIsAnsweredAndNeverHandsOver(t *testing.T) {
	t.Parallel()
	text := func(lang, key string) string { return i18n.Text(lang, key) }
	named := func(lang, key string) string { return fmt.Sprintf(i18n.Text(lang, key), "Helper") }
	tests := []struct{ lang, text, want string }{
		{"en", "hello", named("en", "reply.greeting")},
		{"en", "Hi there!", named("en", "reply.greeting")},
		{"en", "helo", named("en", "reply.greeting")},
		{"en", "thanks", text("en", "reply.thanks")},
		{"en", "thnaks a lot!", text("en", "reply.thanks")},
		{"en", "are you a bot?", named("en", "reply.bot")},
		{"en", "Are you human?", named("en", "reply.bot")},
		{"en", "ok", text("en", "reply.ack")},
		{"en", "yes", text("en", "reply.yes_no")},
		{"en", "no", text("en", "reply.yes_no")},
		{"en", "bye", text("en", "reply.bye")},
		{"ro", "bună ziua", named("ro", "reply.greeting")},
		{"ro", "buna ziua", named("ro", "reply.greeting")},
		{"ro", "Salut!", named("ro", "reply.greeting")},
		{"ro", "mulțumesc frumos", text("ro", "reply.thanks")},
		{"ro", "multumsec", text("ro", "reply.thanks")},
		{"ro", "ești un robot?", named("ro", "reply.bot")},
		{"ro", "da", text("ro", "reply.yes_no")},
		{"ro", "la revedere", text("ro", "reply.bye")},
		{"ru", "привет", named("ru", "reply.greeting")},
		{"ru", "Здраствуйте", named("ru", "reply.greeting")},
		{"ru", "спасибо большое", text("ru", "reply.thanks")},
		{"ru", "ты бот?", named("ru", "reply.bot")},
		{"ru", "ок", text("ru", "reply.ack")},
		{"ru", "нет", text("ru", "reply.yes_no")},
		{"ru", "до свидания", text("ru", "reply.bye")},
		// A visitor greeting in their own language in an English widget
		// is answered in theirs.
		{"en", "привет", named("ru", "reply.greeting")},
		{"en", "bună ziua", named("ro", "reply.greeting")},
	}
	f := newDemoFixture(t)
	conv := f.init()
	for _, tt := range tests {
		res := f.chatIn(conv, tt.text, tt.lang)
		if res.Response != tt.want || res.Handoff || res.Options != nil {
			t.Errorf("%s %q: got %q %q, want %q", tt.lang, tt.text, res.Response, res.Options, tt.want)
		}
	}
	if c := f.conv(conv); c.Misses != 0 || c.Waiting {
		t.Fatalf("after %d small-talk messages: %d misses, waiting %v; want none", len(tests), c.Misses, c.Waiting)
	}
}

// A greeting or thanks around a real question answers the question.
func TestGreetingWithAQuestionAnswersIt(t *testing.T) {
	t.Parallel()
	answer := func(q string) string {
		i := slices.IndexFunc(demo.Knowledge, func(e domain.KnowledgeEntry) bool { return e.Question == q })
		return demo.Knowledge[i].Answer
	}
	tests := []struct{ lang, text, want string }{
		{"en", "hi, how much does it cost?", answer("How much does it cost? What is the price?")},
		{"en", "Hello! which languages do you support? thanks", answer("Which languages are supported?")},
		{"ro", "bună ziua, cât costă?", answer("Cât costă? Care este prețul?")},
		{"ru", "привет, какие языки поддерживаются?", answer("Какие языки поддерживаются?")},
	}
	f := newDemoFixture(t)
	conv := f.init()
	for _, tt := range tests {
		if res := f.chatIn(conv, tt.text, tt.lang); res.Response != tt.want {
			t.Errorf("%s %q: got %q, want %q", tt.lang, tt.text, res.Response, tt.want)
		}
	}
}

// A question about operators and takeovers is answered from the knowledge
// (the demo page invites it); a request for a person, in any of the three
// languages, hands over.
func TestQuestionsAboutOperatorsAreAnsweredRequestsHandOver(t *testing.T) {
	t.Parallel()
	about := []struct{ lang, text, answerStart string }{
		{"en", "what happens when an operator takes over?", "Yes. An operator can take over"},
		{"en", "can a human take over the chat?", "Yes. An operator can take over"},
		{"ro", "ce se întâmplă când preia un operator conversația?", "Da. Un operator poate prelua"},
		{"ru", "что будет, когда оператор подключится к разговору?", "Да. Оператор может взять"},
	}
	for _, tt := range about {
		f := newDemoFixture(t)
		conv := f.init()
		res := f.chatIn(conv, tt.text, tt.lang)
		if !strings.HasPrefix(res.Response, tt.answerStart) || f.conv(conv).Waiting {
			t.Errorf("%s %q: got %q (waiting %v), want the answer about takeovers", tt.lang, tt.text, res.Response, f.conv(conv).Waiting)
		}
	}
	requests := []struct{ lang, text string }{
		{"en", "can I talk to a human?"},
		{"en", "operator please"},
		{"ro", "vreau să vorbesc cu un operator"},
		{"ro", "un om va rog"},
		{"ru", "позовите оператора"},
		{"ru", "можно поговорить с живым человеком?"},
	}
	for _, tt := range requests {
		f := newDemoFixture(t)
		conv := f.init()
		res := f.chatIn(conv, tt.text, tt.lang)
		if res.Response != i18n.Text(tt.lang, "handoff.message") || !f.conv(conv).Waiting {
			t.Errorf("%s %q: got %q (waiting %v), want the handoff", tt.lang, tt.text, res.Response, f.conv(conv).Waiting)
		}
	}
}

// A "did you mean…?" is no answer yet: it counts as a miss, so a second
// reply without an answer asks for a person; picking a candidate answers
// and starts the count again.
func TestDidYouMeanCountsAsAMiss(t *testing.T) {
	t.Parallel()
	f := newDemoFixture(t)
	conv := f.init()
	res := f.chatIn(conv, "как подключить виджет", "ru")
	if res.Response != i18n.Text("ru", "reply.did_you_mean") || len(res.Options) < 2 {
		t.Fatalf("first: %+v, want did you mean with candidates", res)
	}
	if c := f.conv(conv); c.Misses != 1 || c.Waiting {
		t.Fatalf("after did you mean: %d misses, waiting %v; want 1 miss and no wait", c.Misses, c.Waiting)
	}
	if res := f.chatIn(conv, res.Options[1], "ru"); !strings.HasPrefix(res.Response, "Вставьте один тег") {
		t.Fatalf("picking %q: got %q, want the widget answer", res.Options[1], res.Response)
	}
	if c := f.conv(conv); c.Misses != 0 {
		t.Fatalf("after an answer: %d misses, want 0", c.Misses)
	}
	f.chatIn(conv, "как подключить виджет", "ru")
	res = f.chatIn(conv, "как подключить виджет", "ru")
	if res.Response != i18n.Text("ru", "handoff.message") || !f.conv(conv).Waiting {
		t.Fatalf("second reply without an answer: %q, want the handoff", res.Response)
	}
}
