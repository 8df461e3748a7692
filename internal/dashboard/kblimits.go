package dashboard

import (
	"errors"
	"strconv"

	"parley/internal/domain"
)

func init() {
	add(map[string][3]string{
		"kb.usage": {"In use: %s of %s items, %s of %s characters (questions, answers, titles and texts together).",
			"Folosite: %s din %s elemente, %s din %s caractere (întrebări, răspunsuri, titluri și texte la un loc).",
			"Занято: %s из %s записей, %s из %s символов (вопросы, ответы, заголовки и тексты вместе)."},
		"kb.limit.items": {"This agent already has as many knowledge items as it may have. Delete some before adding more.",
			"Acest agent are deja numărul maxim de elemente de cunoștințe. Ștergeți câteva înainte de a adăuga altele.",
			"У этого агента уже максимальное число записей в базе знаний. Удалите часть, прежде чем добавлять новые."},
		"kb.limit.chars": {"With this, the agent's knowledge would be longer than it may be (see the characters in use above). Shorten or delete items first.",
			"Astfel, cunoștințele agentului ar depăși lungimea permisă (vedeți mai sus caracterele folosite). Scurtați sau ștergeți mai întâi unele elemente.",
			"Тогда база знаний агента превысит допустимый объём (см. выше, сколько символов занято). Сначала сократите или удалите записи."},
		"agents.limit": {"This account already has as many agents as it may have.",
			"Acest cont are deja numărul maxim de agenți.",
			"У этой учётной записи уже максимальное число агентов."},
	})
}

// limitKey is the message key for a refusal by one of the instance's
// bounds (domain.Bounds), "" for any other error.
func limitKey(err error) string {
	var kl *domain.KnowledgeLimitError
	var al *domain.AgentLimitError
	switch {
	case errors.As(err, &kl):
		return "kb." + string(kl.Problem) // kb.limit.items, kb.limit.chars
	case errors.As(err, &al):
		return "agents.limit"
	}
	return ""
}

// kbUsage is the knowledge section's line on the agent's bounds, its
// numbers written as the page's language writes them. Empty when the
// instance sets no bounds.
type kbUsage struct{ Items, MaxItems, Chars, MaxChars string }

func usageOf(entries []domain.KnowledgeEntry, l domain.KnowledgeLimits, lang string) *kbUsage {
	if l.MaxItems == 0 || l.MaxChars == 0 {
		return nil
	}
	s := domain.SizeOf(entries)
	return &kbUsage{groupDigits(s.Items, lang), groupDigits(l.MaxItems, lang), groupDigits(s.Chars, lang), groupDigits(l.MaxChars, lang)}
}

// groupDigits writes n with its thousands grouped: 1,000,000 in English,
// 1.000.000 in Romanian, 1 000 000 (no-break spaces) in Russian.
func groupDigits(n int, lang string) string {
	sep := map[string]string{"ro": ".", "ru": "\u00a0"}[lang]
	if sep == "" {
		sep = ","
	}
	s := strconv.Itoa(n)
	out := ""
	for len(s) > 3 {
		out = sep + s[len(s)-3:] + out
		s = s[:len(s)-3]
	}
	return s + out
}
