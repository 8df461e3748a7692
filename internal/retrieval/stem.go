package retrieval

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
)

// envs recycles Snowball environments: one per stemmed word would be the
// largest allocation of a search.
var envs = sync.Pool{New: func() any { return snowballstem.NewEnv("") }}

// stem returns the stem of a folded word in language lang ("en", "ro" or
// "ru").
func stem(lang, word string) string {
	if s, ok := irregular[lang][word]; ok {
		return s
	}
	return snowball(lang, word)
}

// snowball returns the Snowball stem of word, tidied for Romanian.
func snowball(lang, word string) string {
	var f func(*snowballstem.Env) bool
	switch lang {
	case "en":
		f = english.Stem
	case "ro":
		f = romanian.Stem
	case "ru":
		f = russian.Stem
	default:
		return word
	}
	env := envs.Get().(*snowballstem.Env)
	env.SetCurrent(word)
	f(env)
	s := env.Current()
	envs.Put(env)
	if lang == "ro" {
		s = tidyRomanian(s)
	}
	if s == "" {
		return word
	}
	return s
}

// roEndings are endings the Snowball Romanian stemmer leaves on folded
// words. It expects diacritics (ă, ș, ț), but visitors often type without
// them, and folding must give the same stem either way. Without its
// diacritics "livrării" keeps "-ar" (livrar, vs livr from "livrare"),
// "livrează" keeps "-eaz", "conturi" keeps "-ur", "plătește" keeps "-est",
// participles keep "-at"/"-it" and "ștergeți" keeps "-et".
var roEndings = []string{"eaz", "est", "ar", "er", "ir", "ur", "at", "it", "et"}

// tidyRomanian strips what the Snowball stemmer leaves of the folded
// endings above, and a final a, e, i or u (cadou/cadouri, parolă/parolei;
// not o, which Snowball leaves when it takes "cadoul" for cado+ul), never
// leaving fewer than four letters for an ending or two for a vowel, so short
// roots stay apart ("colet", "reset").
func tidyRomanian(s string) string {
	n := utf8.RuneCountInString(s)
	if n > 2 && strings.ContainsRune("aeiu", rune(s[len(s)-1])) {
		s, n = s[:len(s)-1], n-1
	}
	for range 2 {
		stripped := false
		for _, e := range roEndings {
			if strings.HasSuffix(s, e) && n-len(e) >= 4 {
				s, n, stripped = s[:len(s)-len(e)], n-len(e), true
				break
			}
		}
		if !stripped {
			break
		}
	}
	return s
}
