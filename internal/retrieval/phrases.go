package retrieval

import (
	"slices"
	"strings"
)

// Phrases are multi-word expressions whose meaning is not in any one of
// their words: "send it back" is a return, not a shipment; "stopped
// working" is a fault; "close my account" deletes it rather than asking
// about opening hours; "nu mai pornește" ("does not start any more") is a
// defect. The analyser rewrites them, in visitors' questions and in the
// knowledge alike, into the word the knowledge would use, before stop words
// are dropped (so "back", "nu", "не" can take part). Like the synonym
// groups they are general help-desk vocabulary, not any one knowledge
// base's.
//
// One rule a line: the pattern, "=>", then the words it becomes. Pattern
// words are folded; "a|b" is either, "word*" any word starting so, a lone
// "*" any one word, and up to maxPhraseGap other words may stand between
// two pattern words ("send the lamp back"). Patterns see words as the
// tokenizer makes them: one-letter words are gone ("nu l-am folosit" is
// nu, am, folosit) and apostrophes are dropped ("don't" is dont). Replacement words starting with "+" are added and the
// matched words kept ("Italy" stays Italy and also means abroad). Rules
// apply in order, each to the result of the ones before.
var phraseRules = map[string]string{
	"en": `
		send|sending|sent|give|giving|gave|bring|take|took|ship back => return
		money back => refund money
		never|not|havent|hasnt|didnt|dont used|use|opened|unpacked|worn => unused
		get|got|receive* my money => refund money
		call|calling off => cancel
		stop|stops|stopped working|work|turning|heating|charging|starting => broken
		not|doesnt|dont|wont|isnt|didnt|cant work*|start*|turn*|switch* => broken
		died|dead => broken
		close|closing|shut my|the account|profile => delete account
		account|profile for good => account delete
		log|logging|sign|signing in|on|into => login
		sign|signing up => register
		customer service|care|support => support
		help desk|line => support
		phone|telephone number => phone contact
		why * need my => use personal data
		what * do with my => use personal data
		share|sell|pass|give my|your info|data|details|number|email|address|phone => share personal data
		pay|paying for courier|delivery|shipping => delivery cost
		by accident|mistake => wrong
		where it is|where is it => track
		came|come|fell off|apart => broken
		stop|halt the|my order => cancel order
		stop it before => cancel
		where* my order|parcel|package|delivery|lamp|item|stuff => track
		what time open*|close*|closing => hours
		when open*|close*|closing => hours
		put together => assemble
		cant|dont|couldnt remember => forgot
		lost my password => forgot password
		italy|germany|france|spain|portugal|poland|austria|belgium|netherlands|holland|uk|england|britain|ireland|usa|america|canada|greece|bulgaria|hungary|czechia|slovakia|sweden|norway|denmark|finland|switzerland|turkey|israel|ukraine|romania|russia|belarus|georgia|kazakhstan|europe|eu => +abroad`,
	"ro": `
		da|dau|dai|dea|trimit*|aduc*|duc* inapoi => returna
		ban* inapoi => rambursare bani
		nu am folosit|desfacut => nefolosit
		nu mai pornest*|merge|functione*|porneste|functioneaza => defect
		inchid* cont*|profil* => sterge cont
		tin|tine minte => uitat
		servici* client* => suport
		relati* client* => suport
		numar* telefon => telefon contact
		nr telefon => telefon contact
		de ce aveti|ai nevoie => folositi date personale
		ce faceti cu => folositi date personale
		vinde*|dati|dat|transmite* datele|adresa|emailul|telefonul => folositi date personale
		opri* comanda => anula comanda
		livrar* cu plata => cost livrare
		platesc|plati|platim livrarea|curierul|transportul => cost livrare
		din greseala => gresit
		unde a ajuns => urmari
		pe unde e|este => urmari
		nu mai stiu => uitat
		intra|intru in cont => autentificare cont
		unde e|este|ii coletul|comanda|pachetul|colet|comanda => urmari
		la ce ora => program
		italia|italiei|germania|germaniei|franta|frantei|spania|spaniei|portugalia|polonia|austria|belgia|olanda|anglia|britanie|irlanda|america|sua|canada|grecia|bulgaria|ungaria|cehia|suedia|elvetia|turcia|israel|ucraina|romania|rusia|belarus|europa|ue => +strainatate`,
	"ru": `
		сдать|сдам|вернуть|верну|отдать|отправить|отправлю обратно|назад => вернуть
		вернут*|возврат*|возвращ*|получ* деньг*|средств* => возмещение деньги
		перестал* работать|работает|включаться|включается|заряжаться|греть => сломался
		не включается|включаются|заводится|заряжается|греет => сломался
		не помню|вспомню|вспомнить => забыл
		личн* кабинет* => аккаунт
		учетн* запис* => аккаунт
		закрыть|закрою|закрыл* аккаунт* => удалить аккаунт
		служб* поддержк* => поддержка
		служб* заботы => поддержка
		номер* телефон* => телефон связаться
		зачем вам => используете персональные данные
		что * делаете с => используете персональные данные
		продаете|передаете|передаёте мои|мой|мою|моим => используете персональные данные
		остановить заказ => отменить заказ
		платить|заплатить|оплачивать за доставку|курьера => стоимость доставки
		где сейчас => отследить
		деньг*|средств* вернут*|придут|поступ*|верн* => возмещение деньги
		где мой|моя|мое заказ|посылка|покупка => отследить
		где заказ|посылка => отследить
		во|до сколько|скольки закрыва*|открыва*|работает|работаете => график
		итали*|германи*|франци*|испани*|португали*|польш*|австри*|бельги*|нидерланд*|голланди*|англи*|великобритани*|ирланди*|сша|америк*|канад*|греци*|болгари*|венгри*|чехи*|швеци*|швейцари*|турци*|израил*|украин*|румыни*|росси*|беларус*|белорусси*|казахстан*|европ*|ес => +заграница`,
}

// maxPhraseGap is how many other words may stand between two words of a
// phrase.
const maxPhraseGap = 2

// phraseRule is one compiled rule: a pattern of word alternatives, and the
// words it becomes.
type phraseRule struct {
	pattern []wordAlts
	repl    []string
	keep    bool // "+" replacement: keep the matched words
}

// wordAlts is one position of a pattern: whole words, and prefixes (written
// with a trailing *).
type wordAlts struct{ words, prefixes []string }

func (a wordAlts) match(w string) bool {
	for _, x := range a.words {
		if w == x {
			return true
		}
	}
	for _, p := range a.prefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// minPhraseTypo is the shortest word a phrase's later words are
// recognised in when misspelt by one edit ("where is my pakage", "где моя
// пасылка"). The first word must be written right: it is what finds the
// rule.
const minPhraseTypo = 5

// matchTypo is match, also allowing one edit in words of minPhraseTypo or
// more letters (for a prefix: in as many first letters of the word).
func (a wordAlts) matchTypo(w string) bool {
	if a.match(w) {
		return true
	}
	rs := []rune(w)
	if len(rs) < minPhraseTypo {
		return false
	}
	for _, x := range a.words {
		xr := []rune(x)
		if len(xr) >= minPhraseTypo && abs(len(xr)-len(rs)) <= 1 && osaDistance(rs, xr, 1) <= 1 {
			return true
		}
	}
	for _, p := range a.prefixes {
		pr := []rune(p)
		if len(pr) >= minPhraseTypo && len(rs) >= len(pr) && osaDistance(rs[:len(pr)], pr, 1) <= 1 {
			return true
		}
	}
	return false
}

// phraseSet is one language's rules, with the rules each word can start
// found by lookup: most words of a message start none, and a message
// should not pay for trying every rule at every word.
type phraseSet struct {
	rules    []phraseRule
	byWord   map[string][]int // first word → rules, in order
	byPrefix []prefixRules
}

type prefixRules struct {
	prefix string
	rules  []int
}

var phrases = func() map[string]*phraseSet {
	out := make(map[string]*phraseSet)
	for lang, lines := range phraseRules {
		ps := &phraseSet{byWord: make(map[string][]int)}
		for line := range strings.SplitSeq(strings.TrimSpace(lines), "\n") {
			pat, repl, ok := strings.Cut(line, "=>")
			if !ok {
				panic("retrieval: phrase rule without =>: " + line)
			}
			var r phraseRule
			for _, w := range strings.Fields(pat) {
				var alts wordAlts
				for a := range strings.SplitSeq(w, "|") {
					if p, ok := strings.CutSuffix(a, "*"); ok {
						alts.prefixes = append(alts.prefixes, Fold(p))
					} else {
						alts.words = append(alts.words, Fold(a))
					}
				}
				r.pattern = append(r.pattern, alts)
			}
			for _, w := range strings.Fields(repl) {
				if strings.HasPrefix(w, "+") {
					r.keep, w = true, w[1:]
				}
				r.repl = append(r.repl, Fold(w))
			}
			id := len(ps.rules)
			ps.rules = append(ps.rules, r)
			for _, w := range r.pattern[0].words {
				ps.byWord[w] = append(ps.byWord[w], id)
			}
			for _, p := range r.pattern[0].prefixes {
				i := slices.IndexFunc(ps.byPrefix, func(x prefixRules) bool { return x.prefix == p })
				if i < 0 {
					i = len(ps.byPrefix)
					ps.byPrefix = append(ps.byPrefix, prefixRules{prefix: p})
				}
				ps.byPrefix[i].rules = append(ps.byPrefix[i].rules, id)
			}
		}
		out[lang] = ps
	}
	return out
}()

// rewritePhrases applies lang's phrase rules to tokens, in their order,
// each to the result of the ones before. Rules whose first word is not in
// the text are skipped; a rewrite may bring in words that start later
// rules ("учётная запись" → аккаунт, then "закрыть аккаунт").
func rewritePhrases(tokens []token, lang string) []token {
	ps := phrases[lang]
	if ps == nil {
		return tokens
	}
	var cand []int
	collect := func() {
		cand = cand[:0]
		for _, t := range tokens {
			cand = append(cand, ps.byWord[t.word]...)
			for _, pr := range ps.byPrefix {
				if strings.HasPrefix(t.word, pr.prefix) {
					cand = append(cand, pr.rules...)
				}
			}
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
	}
	collect()
	done := -1
	for {
		i, _ := slices.BinarySearch(cand, done+1)
		if i == len(cand) {
			return tokens
		}
		done = cand[i]
		if out, changed := ps.rules[done].apply(tokens); changed {
			tokens = out
			collect()
		}
	}
}

// apply rewrites every match of r in tokens, left to right, and reports
// whether there was one.
func (r *phraseRule) apply(tokens []token) ([]token, bool) {
	var out []token
	changed := false
	for i := 0; i < len(tokens); i++ {
		end, matched := r.match(tokens, i)
		if matched == nil {
			if changed {
				out = append(out, tokens[i])
			}
			continue
		}
		if !changed {
			out = append(make([]token, 0, len(tokens)+len(r.repl)), tokens[:i]...)
			changed = true
		}
		// Keep the words between the matched ones, in order; put the
		// replacement where the phrase began.
		if r.keep {
			out = append(out, tokens[i])
		}
		for _, w := range r.repl {
			out = append(out, token{word: w, script: tokens[i].script})
		}
		for j := i + 1; j < end; j++ {
			if !matched[j-i] || r.keep {
				out = append(out, tokens[j])
			}
		}
		i = end - 1
	}
	if !changed {
		return tokens, false
	}
	return out, true
}

// match tries r at tokens[i]: it returns the end of the match (exclusive)
// and which tokens from i on belong to the phrase, or nil.
func (r *phraseRule) match(tokens []token, i int) (int, []bool) {
	if !r.pattern[0].match(tokens[i].word) {
		return 0, nil
	}
	matched := []bool{true}
	pos, last := 1, i
	for j := i + 1; pos < len(r.pattern); j++ {
		if j >= len(tokens) || j-last-1 > maxPhraseGap {
			return 0, nil
		}
		if r.pattern[pos].matchTypo(tokens[j].word) {
			for len(matched) < j-i {
				matched = append(matched, false)
			}
			matched = append(matched, true)
			last, pos = j, pos+1
		}
	}
	return last + 1, matched
}
