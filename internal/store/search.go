package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The inbox search matches a substring of any message text regardless of
// case, in every language. Databases fold case differently (SQLite's LIKE
// folds ASCII only; PostgreSQL's lower() follows the locale), so stores
// keep a folded copy of each message, written in Go with Fold, and match
// ContainsPattern(query) against it with LIKE … ESCAPE '\'.

// Fold maps every letter to one representative of its case-folding orbit,
// the set of runes strings.EqualFold treats as equal. Plain strings.ToLower
// is not enough: it leaves the Greek final sigma ς apart from σ and Σ, and
// the Kelvin sign K apart from k.
func Fold(s string) string { return strings.Map(foldRune, s) }

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	// The smallest rune of the orbit is the same from every member; its
	// lower case keeps the stored column readable.
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return unicode.ToLower(least)
}

// LikeEscape is the ESCAPE character of ContainsPattern's patterns.
const LikeEscape = `\`

// ContainsPattern is a LIKE pattern (with ESCAPE '\') matching folded texts
// that contain q; % and _ in q are literal characters, not wildcards.
func ContainsPattern(q string) string {
	esc := strings.NewReplacer(LikeEscape, LikeEscape+LikeEscape, "%", LikeEscape+"%", "_", LikeEscape+"_")
	return "%" + esc.Replace(Fold(q)) + "%"
}

// The stores answer a search of TrigramMin characters or more from a
// trigram index of the folded texts (SQLite FTS5, PostgreSQL pg_trgm): a
// substring of three characters or more is found through the trigrams it
// is made of. A shorter one has no trigram to look up, so it is a scan of
// the messages, bounded to the ShortSearchWindow newest conversations of
// the list being searched: a page then costs the same however many
// conversations the account has (docs/store.md "The inbox search").
const (
	TrigramMin        = 3
	ShortSearchWindow = 1000
)

// ShortSearch reports whether q is too short for the trigram index, and
// its search is bounded to the ShortSearchWindow newest conversations.
func ShortSearch(q string) bool { return utf8.RuneCountInString(q) < TrigramMin }
