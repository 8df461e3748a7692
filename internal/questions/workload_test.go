package questions

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sentences are the distinct questions of both testdata sets, per
// language, in file order.
func sentences(t testing.TB) map[string][]string {
	t.Helper()
	out := make(map[string][]string)
	for _, name := range []string{"tuning.txt", "heldout.txt"} {
		for lang, pairs := range loadPairs(t, name) {
			for _, p := range pairs {
				for _, s := range []string{p.a, p.b} {
					if !slices.Contains(out[lang], s) {
						out[lang] = append(out[lang], s)
					}
				}
			}
		}
	}
	return out
}

// Openings and endings of chat messages around a question, per language.
var (
	openings = map[string][]string{
		"en": {"", "", "hi, ", "Hello! ", "hey ", "good morning, "},
		"ro": {"", "", "Bună ziua, ", "salut ", "buna, "},
		"ru": {"", "", "Здравствуйте, ", "привет, ", "добрый день! "},
	}
	endings = []string{"", "", "?", "??", "!", " thanks", " :)"}
)

// workload is n visitor questions as a knowledge-gaps list holds them: the
// testdata's questions in three languages, a few asked often and most
// rarely (the square of a uniform draw picks the index), each with a
// greeting, an ending and letter case of its own. Deterministic per seed.
func workload(t testing.TB, n int, seed uint64) []Item {
	byLang := sentences(t)
	langs := []string{"en", "ro", "ru"}
	r := rand.New(rand.NewPCG(seed, 1))
	items := make([]Item, n)
	for i := range items {
		lang := langs[r.IntN(len(langs))]
		list := byLang[lang]
		u := r.Float64()
		text := list[int(u*u*float64(len(list)))]
		if r.IntN(4) == 0 {
			text = strings.ToLower(text)
		}
		o := openings[lang]
		text = o[r.IntN(len(o))] + text + endings[r.IntN(len(endings))]
		items[i] = Item{Text: text, Lang: lang}
	}
	return items
}

// longWorkload is n messages of three workload questions each (of three
// draws, so of any languages), with no language given.
func longWorkload(t testing.TB, n int) []Item {
	a, b, c := workload(t, n, 1), workload(t, n, 2), workload(t, n, 3)
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{Text: a[i].Text + " " + b[i].Text + " " + c[i].Text}
	}
	return items
}
