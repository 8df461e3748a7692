// Package demo creates the demo account, agent and knowledge base that let
// a newcomer try Parley right after the first start.
package demo

import (
	"context"
	"errors"

	"parley/internal/domain"
	"parley/internal/password"
	"parley/internal/secret"
	"parley/internal/store"
)

// Email is the demo account's login.
const Email = "demo@parley.local"

// Credentials are printed once, on the start that created them: only hashes
// are stored, so they cannot be shown again.
type Credentials struct {
	Email     string
	Password  string
	APIToken  string
	WidgetKey string
}

// Seed creates the demo account on an empty database. It reports false
// (and does nothing) when the database already has accounts.
func Seed(ctx context.Context, s interface {
	store.Accounts
	store.APITokens
	store.Agents
}) (Credentials, bool, error) {
	n, err := s.CountAccounts(ctx)
	if err != nil || n > 0 {
		return Credentials{}, false, err
	}
	c := Credentials{Email: Email, Password: newPassword(), APIToken: secret.APIToken(), WidgetKey: secret.WidgetKey()}
	hash, err := secret.HashPassword(c.Password)
	if err != nil {
		return Credentials{}, false, err
	}
	acc, err := s.CreateAccount(ctx, store.NewAccount{Email: Email, Name: "Demo", PasswordHash: hash, Limits: domain.DefaultLimits})
	if errors.Is(err, domain.ErrConflict) {
		return Credentials{}, false, nil // another instance seeded it first
	}
	if err != nil {
		return Credentials{}, false, err
	}
	if _, err := s.CreateAPIToken(ctx, acc.ID, "demo", secret.HashToken(c.APIToken)); err != nil {
		return Credentials{}, false, err
	}
	_, err = s.CreateAgent(ctx, store.NewAgent{
		AccountID:   acc.ID,
		ChatbotName: "Parley Demo",
		Config:      []byte(`{"greeting":"Hi! Ask me anything about Parley.","color":"#2457c5","position":"right"}`),
		Knowledge:   Knowledge,
		Key:         c.WidgetKey,
	})
	if err != nil {
		return Credentials{}, false, err
	}
	return c, true, nil
}

// newPassword is 16 random base32 characters (80 bits), checked against
// the rule for new passwords like any other.
func newPassword() string {
	for {
		if p := secret.ID("", 10); password.Check(p) == nil {
			return p
		}
	}
}

// WidgetKey returns the demo agent's newest active key, "" when there is no
// demo account (PARLEY_DEMO=false or deleted).
func WidgetKey(ctx context.Context, s interface {
	store.Accounts
	store.Agents
	store.Keys
}) string {
	acc, err := s.AccountByEmail(ctx, Email)
	if err != nil {
		return ""
	}
	agents, err := s.Agents(ctx, acc.ID)
	if err != nil || len(agents) == 0 {
		return ""
	}
	keys, err := s.Keys(ctx, acc.ID, agents[0].ID)
	if err != nil {
		return ""
	}
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].Active {
			return keys[i].Key
		}
	}
	return ""
}

// Knowledge is the demo agent's knowledge base, about Parley itself.
var Knowledge = []domain.KnowledgeEntry{
	{Lang: "en", Question: "What is Parley?", Answer: "Parley is a self-hosted AI chat widget: one script tag on your site, answers from your knowledge base, and a human can take over any conversation."},
	{Lang: "en", Question: "How do I add the chat widget to my website?", Answer: "Paste one tag before </body>: <script async src=\"https://YOUR-HOST/widget.js\" data-key=\"wk_...\"></script>. The key is in the dashboard under Agents, in the Embed Code section."},
	{Lang: "en", Question: "How much does it cost? What is the price?", Answer: "Parley is free to run yourself. Each account has a monthly conversation allowance (100 by default); overage can be priced per conversation with a spend cap."},
	{Lang: "en", Question: "Can a human operator take over the conversation?", Answer: "Yes. An operator can take over any conversation; the AI then stays silent and the operator's replies appear in the widget."},
	{Lang: "en", Question: "Which languages are supported?", Answer: "The widget and the built-in agent speak English, Romanian and Russian."},
	{Lang: "en", Question: "Which database does Parley need?", Answer: "None to install: Parley keeps everything in an embedded SQLite file by default. PostgreSQL and Redis are for running several instances."},
	{Lang: "en", Question: "Is my data private? Where are messages stored?", Answer: "Every message is stored on your own server, in your database. Nothing is sent elsewhere unless you connect an external LLM."},
	{Lang: "ro", Question: "Ce este Parley?", Answer: "Parley este un widget de chat cu AI pe care îl găzduiești singur: o singură etichetă script pe site, răspunsuri din baza ta de cunoștințe și un om poate prelua orice conversație."},
	{Lang: "ro", Question: "Cum adaug widgetul de chat pe site?", Answer: "Lipește o etichetă înainte de </body>: <script async src=\"https://GAZDA-TA/widget.js\" data-key=\"wk_...\"></script>. Cheia se află în panou, la Agenți, în secțiunea Embed Code."},
	{Lang: "ro", Question: "Cât costă? Care este prețul?", Answer: "Parley este gratuit dacă îl rulezi singur. Fiecare cont are o alocare lunară de conversații (implicit 100)."},
	{Lang: "ro", Question: "Poate un operator uman să preia conversația?", Answer: "Da. Un operator poate prelua orice conversație; atunci AI-ul tace, iar răspunsurile operatorului apar în widget."},
	{Lang: "ro", Question: "Ce limbi sunt suportate?", Answer: "Widgetul și agentul integrat vorbesc engleză, română și rusă."},
	{Lang: "ru", Question: "Что такое Parley?", Answer: "Parley — это чат-виджет с ИИ, который вы размещаете у себя: один тег script на сайте, ответы из вашей базы знаний, и человек может подключиться к любому разговору."},
	{Lang: "ru", Question: "Как добавить виджет чата на сайт?", Answer: "Вставьте один тег перед </body>: <script async src=\"https://ВАШ-ХОСТ/widget.js\" data-key=\"wk_...\"></script>. Ключ находится в панели, в разделе Agents, блок Embed Code."},
	{Lang: "ru", Question: "Сколько это стоит? Какая цена?", Answer: "Parley бесплатен, если вы запускаете его сами. У каждого аккаунта есть месячный лимит разговоров (по умолчанию 100)."},
	{Lang: "ru", Question: "Может ли оператор подключиться к разговору?", Answer: "Да. Оператор может взять любой разговор на себя; тогда ИИ молчит, а ответы оператора появляются в виджете."},
	{Lang: "ru", Question: "Какие языки поддерживаются?", Answer: "Виджет и встроенный агент говорят по-английски, по-румынски и по-русски."},
}
