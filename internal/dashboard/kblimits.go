package dashboard

import (
	"errors"
	"strconv"

	"parley/internal/domain"
)

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

// groupDigits writes n with its thousands grouped as lang does (catalogue
// key number.thousands): 1,000,000 in English, 1.000.000 in Romanian,
// 1 000 000 (no-break spaces) in Russian.
func groupDigits(n int, lang string) string {
	sep := T(lang, "number.thousands")
	s := strconv.Itoa(n)
	out := ""
	for len(s) > 3 {
		out = sep + s[len(s)-3:] + out
		s = s[:len(s)-3]
	}
	return s + out
}
