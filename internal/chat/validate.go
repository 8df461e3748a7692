package chat

import (
	"strings"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/web/i18n"
)

// Limits of the widget API's inputs. MaxTextChars is the spec's; the others
// are Parley's decisions (docs/api.md) that keep stored rows bounded.
const (
	MaxTextChars      = 2000 // Unicode code points, not bytes
	MaxVisitorIDChars = 128
	MaxPageURLChars   = 2048
	MaxOperatorName   = 100
)

// checkText enforces the message rules: present, not blank, at most
// MaxTextChars code points. Nothing is ever truncated silently.
func checkText(text string) error {
	if strings.TrimSpace(text) == "" {
		return domain.Invalid("text is required and must not be blank")
	}
	if !utf8.ValidString(text) {
		return domain.Invalid("text must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > MaxTextChars {
		return domain.Invalid("text is longer than 2000 characters")
	}
	return nil
}

// NormalizeLang maps a language tag to one of the languages Parley speaks
// (i18n.Languages). Empty means en; a region or script suffix is ignored
// ("ro-RO" is ro); case does not matter.
func NormalizeLang(lang string) (string, error) {
	if lang == "" {
		return "en", nil
	}
	if base, ok := i18n.Base(lang); ok {
		return base, nil
	}
	return "", domain.Invalid("lang must be one of " + i18n.List())
}

func checkKey(key string) error {
	if key == "" {
		return domain.Invalid("key is required")
	}
	if !strings.HasPrefix(key, "wk_") {
		// A well-formed request naming no key of ours: the key is invalid.
		return domain.ErrKeyInvalid
	}
	return nil
}

func checkVisitorID(id string) error {
	if utf8.RuneCountInString(id) > MaxVisitorIDChars || !utf8.ValidString(id) {
		return domain.Invalid("visitor_id must be valid text of at most 128 characters")
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return domain.Invalid("visitor_id must not contain control characters")
		}
	}
	return nil
}
