package dashboard

import (
	"slices"
	"strconv"
	"strings"

	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/sources"
)

// A sync's error and note are stored twice: in English words (what the
// API returns) and as reasons, codes with their values (package sources
// lists them). The page says them in its language from the reasons, and
// in the stored English, marked lang="en", when it cannot: a row from
// before reasons were kept, an error no code names, or a code newer than
// this dashboard.

// sayReasons is rs in lang, each reason a sentence of the catalogue
// ("sources.reason." + its code); ok is false when rs is empty or holds a
// reason this dashboard cannot word.
func sayReasons(rs []domain.Reason, lang string) (msg string, ok bool) {
	if len(rs) == 0 {
		return "", false
	}
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		kinds, known := sources.Reasons[r.Code]
		if !known || len(kinds) != len(r.Args) {
			return "", false
		}
		args := make([]any, len(r.Args))
		for i, a := range r.Args {
			switch kinds[i] {
			case sources.ArgCount:
				n, err := strconv.Atoi(a)
				if err != nil {
					return "", false
				}
				args[i] = groupDigits(n, lang)
			case sources.ArgClass:
				if !knownClass(a) {
					return "", false
				}
				args[i] = T(lang, "outbound."+a)
			default:
				args[i] = bidiText(a) // a URL or a content type from the site
			}
		}
		parts = append(parts, tf(lang, "sources.reason."+r.Code, args))
	}
	return strings.Join(parts, " "), true
}

func knownClass(key string) bool {
	return slices.ContainsFunc(outbound.Classes, func(c outbound.Class) bool { return c.Key() == key })
}

// outcomeOf fills the row's error and note in lang: from their reasons,
// else the stored English.
func (row *sourceRow) outcomeOf(src domain.Source, lang string) {
	row.ErrorText, row.ErrorEnglish = src.Error, true
	if msg, ok := sayReasons(src.ErrorReasons, lang); ok {
		row.ErrorText, row.ErrorEnglish = msg, false
	}
	row.NoteText, row.NoteEnglish = src.Note, true
	if msg, ok := sayReasons(src.NoteReasons, lang); ok {
		row.NoteText, row.NoteEnglish = msg, false
	}
}
