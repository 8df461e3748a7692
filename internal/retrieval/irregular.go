package retrieval

import "strings"

// irregularForms are inflected forms the Snowball stemmers do not bring to
// their word's stem: English irregular verbs, the Russian "день" (whose
// forms stem to ден, дня, дне, дни) and "стоит", which Snowball cuts to сто
// ("hundred") and which here joins "стоимость", its noun; Romanian "zi"
// and "comandă", whose plural is "comenzi".
// Each line is the form the others become, then the others (folded).
var irregularForms = map[string]string{
	"en": `
		buy bought
		pay paid
		send sent
		break broke broken
		take took taken
		forget forgot forgotten
		lose lost
		give gave given
		come came
		make made
		sell sold
		tell told
		bring brought
		choose chose chosen`,
	"ro": `
		zi zile zilei zilele zilelor
		comanda comenzi comenzii comenzile comenzilor`,
	"ru": `
		день дня дней дни днем дням днях
		стоимость стоит стоят стоить стоило стоили`,
}

// irregular maps, per stemmer language, a folded form to its stem.
var irregular = func() map[string]map[string]string {
	out := make(map[string]map[string]string)
	for lang, lines := range irregularForms {
		m := make(map[string]string)
		for line := range strings.SplitSeq(strings.TrimSpace(lines), "\n") {
			forms := strings.Fields(line)
			s := snowball(lang, Fold(forms[0]))
			for _, f := range forms {
				m[Fold(f)] = s
			}
		}
		out[lang] = m
	}
	return out
}()
