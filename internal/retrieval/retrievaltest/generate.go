// Package retrievaltest generates knowledge bases and visitor questions of
// realistic size and shape for benchmarks: the real thing's word counts,
// vocabulary sizes and mix of languages, Q&A entries and documents, without
// anyone having to write a thousand entries.
package retrievaltest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/internal/domain"
)

// Query is a generated visitor question.
type Query struct {
	Text, Lang string
}

// language is what the generator needs to write in one language: common
// words that recur across entries, and syllables for the long tail of rarer
// words (product names, places, jargon) a real knowledge base has.
type language struct {
	code      string
	common    []string
	syllables []string
}

var languages = []language{
	{
		code: "en",
		common: strings.Fields(`order delivery shipping price payment card account password invoice
			refund return product warranty store support email phone address discount code gift
			days week hours open time country courier parcel tracking number cancel change free
			cost customer service help money bank transfer cash online website page form label`),
		syllables: strings.Fields("ba ker lin mo tor sta ple ver din gal nor pet tri son ex ra com ful"),
	},
	{
		code: "ro",
		common: strings.Fields(`comandă livrare transport preț plată card cont parolă factură
			rambursare retur produs garanție magazin suport telefon adresă reducere cod cadou
			zile săptămână ore deschis timp țară curier colet urmărire număr anulare schimbare
			gratuit cost client serviciu bani bancă transfer numerar site pagină formular etichetă`),
		syllables: strings.Fields("ca re ță lu mi no șe tă pu ra vi ne că bo si tor âr în"),
	},
	{
		code: "ru",
		common: strings.Fields(`заказ доставка стоимость оплата карта аккаунт пароль счёт возврат
			товар гарантия магазин поддержка почта телефон адрес скидка код подарок дни неделя
			часы открыт время страна курьер посылка отслеживание номер отмена изменение бесплатно
			цена клиент сервис деньги банк перевод наличные сайт страница форма ярлык`),
		syllables: strings.Fields("ка ро ни та ло ве ми ст пр до ры жё ку за но ль щи"),
	},
}

// generator draws words: common words often, the language's rare words
// with a long tail, as in real text.
type generator struct {
	r    *rand.Rand
	rare map[string][]string // by language
}

func newGenerator(seed uint64) *generator { return newGeneratorWith(seed, 1500) }

// newGeneratorWith draws from rare rare words per language.
func newGeneratorWith(seed uint64, rare int) *generator {
	g := &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rare: make(map[string][]string)}
	for _, l := range languages {
		seen := make(map[string]bool)
		for len(g.rare[l.code]) < rare {
			var b strings.Builder
			for range 2 + g.r.IntN(3) {
				b.WriteString(l.syllables[g.r.IntN(len(l.syllables))])
			}
			if w := b.String(); !seen[w] {
				seen[w] = true
				g.rare[l.code] = append(g.rare[l.code], w)
			}
		}
	}
	return g
}

func (g *generator) word(l language) string {
	if g.r.IntN(3) > 0 {
		return l.common[g.r.IntN(len(l.common))]
	}
	rare := g.rare[l.code]
	u := g.r.Float64()
	return rare[int(u*u*float64(len(rare)))] // skewed: some rare words recur
}

func (g *generator) sentence(l language, words int) string {
	ws := make([]string, words)
	for i := range ws {
		ws[i] = g.word(l)
	}
	rs := []rune(strings.Join(ws, " "))
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs) + "."
}

// Entries generates n knowledge entries spread over English, Romanian and
// Russian: nine in ten are Q&A entries (a question of 5-11 words, an answer
// of 20-60), one in ten a Markdown document of three sections of two
// paragraphs; one in twenty has no language.
func Entries(n int, seed uint64) []domain.KnowledgeEntry {
	g := newGenerator(seed)
	out := make([]domain.KnowledgeEntry, n)
	for i := range out {
		l := languages[i%len(languages)]
		e := domain.KnowledgeEntry{ID: fmt.Sprintf("kb_%d", i), Lang: l.code}
		if g.r.IntN(20) == 0 {
			e.Lang = ""
		}
		if i%10 == 9 {
			e.Kind, e.Title = domain.KindDocument, g.sentence(l, 3)
			var b strings.Builder
			for range 3 {
				b.WriteString("## " + g.sentence(l, 2+g.r.IntN(3)) + "\n\n")
				for range 2 {
					for range 3 + g.r.IntN(4) {
						b.WriteString(g.sentence(l, 6+g.r.IntN(10)) + " ")
					}
					b.WriteString("\n\n")
				}
			}
			e.Text = b.String()
		} else {
			e.Kind = domain.KindQA
			e.Question = strings.TrimSuffix(g.sentence(l, 5+g.r.IntN(7)), ".") + "?"
			var b strings.Builder
			for words := 20 + g.r.IntN(41); words > 0; words -= 10 {
				b.WriteString(g.sentence(l, min(words, 10)) + " ")
			}
			e.Answer = strings.TrimSpace(b.String())
		}
		out[i] = e
	}
	return out
}

// Queries generates n visitor questions about entries: a few words of an
// entry's question or text, some with a typo (two letters swapped), some
// with a word the knowledge base does not have.
func Queries(entries []domain.KnowledgeEntry, n int, seed uint64) []Query {
	g := newGenerator(seed + 1)
	out := make([]Query, n)
	for i := range out {
		e := entries[g.r.IntN(len(entries))]
		source := e.Question + " " + e.Answer
		if e.IsDocument() {
			source = e.Text
		}
		words := strings.Fields(strings.NewReplacer("#", "", ".", "", "?", "").Replace(source))
		k := 3 + g.r.IntN(4)
		start := g.r.IntN(max(len(words)-k, 1))
		q := append([]string(nil), words[start:min(start+k, len(words))]...)
		if j := g.r.IntN(len(q)); g.r.IntN(4) == 0 && len([]rune(q[j])) > 4 {
			rs := []rune(q[j])
			rs[1], rs[2] = rs[2], rs[1]
			q[j] = string(rs)
		}
		if g.r.IntN(3) == 0 {
			q = append(q, "zxqv"+fmt.Sprint(g.r.IntN(100)))
		}
		lang := e.Lang
		if lang == "" {
			lang = "en"
		}
		out[i] = Query{Text: strings.Join(q, " ") + "?", Lang: lang}
	}
	return out
}

// Documents generates n Markdown documents of chars characters each in
// language lang ("" for English words and no language), as large manuals
// are: sections under headings, paragraphs of sentences, and besides the
// common words a vocabulary of 20,000 rarer ones per language (a real
// manual of millions of characters has tens of thousands of distinct
// words).
func Documents(n, chars int, lang string, seed uint64) []domain.KnowledgeEntry {
	g := newGeneratorWith(seed, 20000)
	l := languages[0]
	for _, c := range languages {
		if c.code == lang {
			l = c
		}
	}
	out := make([]domain.KnowledgeEntry, n)
	for i := range out {
		var b strings.Builder
		size := 0
		write := func(s string) { b.WriteString(s); size += utf8.RuneCountInString(s) }
		for size < chars {
			write("## " + strings.TrimSuffix(g.sentence(l, 2+g.r.IntN(4)), ".") + "\n\n")
			for range 2 + g.r.IntN(4) {
				for range 3 + g.r.IntN(5) {
					write(g.sentence(l, 6+g.r.IntN(12)) + " ")
				}
				write("\n\n")
			}
		}
		rs := []rune(b.String())
		out[i] = domain.KnowledgeEntry{ID: fmt.Sprintf("doc_%d", i), Kind: domain.KindDocument,
			Title: g.sentence(l, 3), Text: strings.TrimSpace(string(rs[:chars])), Lang: lang}
	}
	return out
}

// Gibberish generates n documents of chars characters made of random
// words of wordLen letters, without a language: what a tenant bent on
// making indexes expensive would upload (every word new, each with many
// typo-table keys).
func Gibberish(n, chars, wordLen int, seed uint64) []domain.KnowledgeEntry {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]domain.KnowledgeEntry, n)
	for i := range out {
		var b strings.Builder
		for b.Len() < chars {
			for range wordLen {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
			if r.IntN(50) == 0 {
				b.WriteString(".\n\n")
			} else {
				b.WriteString(" ")
			}
		}
		out[i] = domain.KnowledgeEntry{ID: fmt.Sprintf("junk_%d", i), Kind: domain.KindDocument, Title: "Junk", Text: b.String()[:chars]}
	}
	return out
}
