package retrievaltest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"parley/internal/domain"
)

// Site generates the pages of a website source as the index sees them
// (domain.SourcePage.Entry): pages documents, each with its URL and a title,
// the languages taking turns (en, ro, ru), and each page sections sections
// under a "##" heading, one paragraph each of sectionChars characters or a
// little more. A paragraph between minPassage and maxPassage characters
// (160 and 800) is one passage, so pages×sections is the number of
// passages the index holds. The vocabulary is a site's: the common words,
// and 8,000 rarer ones per language (a site of a few thousand pages uses
// tens of thousands of distinct words).
func Site(pages, sections, sectionChars int, seed uint64) []domain.KnowledgeEntry {
	g := newGeneratorWith(seed, 8000)
	out := make([]domain.KnowledgeEntry, pages)
	for i := range out {
		l := languages[i%len(languages)]
		var b strings.Builder
		for s := range sections {
			if s > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("## " + strings.TrimSuffix(g.sentence(l, 2+g.r.IntN(4)), ".") + "\n\n")
			n := 0
			for n < sectionChars {
				if n > 0 {
					b.WriteString(" ")
					n++
				}
				s := g.sentence(l, 6+g.r.IntN(10))
				b.WriteString(s)
				n += utf8.RuneCountInString(s)
			}
		}
		out[i] = domain.KnowledgeEntry{
			ID: fmt.Sprintf("page_%d", i), Kind: domain.KindDocument, Lang: l.code,
			Title: g.sentence(l, 3), Text: b.String(), URL: fmt.Sprintf("https://example.com/%s/page-%d", l.code, i),
		}
	}
	return out
}

// offTopic are words of what visitors ask a site that cannot answer
// (weather, sport, cooking, travel), which no generated knowledge has.
var offTopic = map[string][]string{
	"en": strings.Fields(`weather tomorrow football match recipe pancakes movie tonight joke
		president election horoscope lottery song lyrics capital france translate poem
		homework math mountain hiking dinosaur guitar chords vacation beach`),
	"ro": strings.Fields(`vremea mâine meci fotbal rețetă clătite film diseară glumă
		președinte alegeri horoscop loterie versuri cântec capitala franței traduce poezie
		temă matematică munte drumeție dinozaur chitară acorduri vacanță plajă`),
	"ru": strings.Fields(`погода завтра футбол матч рецепт блины фильм вечером шутка
		президент выборы гороскоп лотерея текст песни столица франции перевести стихи
		домашнее задание гора поход динозавр гитара аккорды отпуск пляж`),
}

// OffTopic generates n visitor questions the knowledge cannot answer, the
// languages taking turns: three to five off-topic words, one question in
// three with a common word of the knowledge among them ("price of a
// football match?"), as off-topic questions often share a word with it.
func OffTopic(n int, seed uint64) []Query {
	g := newGenerator(seed + 2)
	out := make([]Query, n)
	for i := range out {
		l := languages[i%len(languages)]
		words := offTopic[l.code]
		q := make([]string, 3+g.r.IntN(3))
		for j := range q {
			q[j] = words[g.r.IntN(len(words))]
		}
		if g.r.IntN(3) == 0 {
			q[g.r.IntN(len(q))] = l.common[g.r.IntN(len(l.common))]
		}
		out[i] = Query{Text: strings.Join(q, " ") + "?", Lang: l.code}
	}
	return out
}
