package retrieval

import "strings"

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
// words are folded; "a|b" is either, "word*" any word starting so, and up
// to maxPhraseGap other words may stand between two pattern words ("send
// the lamp back"). Replacement words starting with "+" are added and the
// matched words kept ("Italy" stays Italy and also means abroad). Rules
// apply in order, each to the result of the ones before.
var phraseRules = map[string]string{
	"en": `
		send|sending|sent|give|giving|gave|bring|take|took|ship back => return
		money back => refund money
		never|not|havent|hasnt|didnt|dont used|use|opened|unpacked|worn => unused
		get|got|receive* my money => refund money
		call|calling off => cancel
		change* my mind => cancel
		stop|stopped working|work => broken
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
		share|sell|give my => share personal data
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
		nu l-am|am folosit|desfacut => nefolosit
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
		unde e|este|ii coletul|comanda|pachetul|colet|comanda => urmari
		la ce ora => program
		razgand* => anula
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
		где мой|моя|мое заказ|посылка|покупка => отследить
		где заказ|посылка => отследить
		во|до сколько|скольки закрыва*|открыва*|работает|работаете => график
		передумал* => отменить
		итали*|германи*|франци*|испани*|португали*|польш*|австри*|бельги*|нидерланд*|голланди*|англи*|великобритани*|ирланди*|сша|америк*|канад*|греци*|болгари*|венгри*|чехи*|швеци*|швейцари*|турци*|израил*|украин*|румыни*|росси*|беларус*|белорусси*|казахстан*|европ*|ес => +заграница`,
}

// maxPhraseGap is how many other words may stand between two words of a
// phrase.
const maxPhraseGap = 2

// phraseRule is one compiled rule: a pattern of word alternatives, and the
// words it becomes.
type phraseRule struct {
	pattern [][]string // per position: folded words, a trailing * a prefix
	repl    []string
	keep    bool // "+" replacement: keep the matched words
}

var phrases = func() map[string][]phraseRule {
	out := make(map[string][]phraseRule)
	for lang, lines := range phraseRules {
		for line := range strings.SplitSeq(strings.TrimSpace(lines), "\n") {
			pat, repl, ok := strings.Cut(line, "=>")
			if !ok {
				panic("retrieval: phrase rule without =>: " + line)
			}
			var r phraseRule
			for _, w := range strings.Fields(pat) {
				var alts []string
				for a := range strings.SplitSeq(w, "|") {
					alts = append(alts, Fold(a))
				}
				r.pattern = append(r.pattern, alts)
			}
			for _, w := range strings.Fields(repl) {
				if strings.HasPrefix(w, "+") {
					r.keep, w = true, w[1:]
				}
				r.repl = append(r.repl, Fold(w))
			}
			out[lang] = append(out[lang], r)
		}
	}
	return out
}()

func (r *phraseRule) matchAt(pos int, w string) bool {
	for _, a := range r.pattern[pos] {
		if p, ok := strings.CutSuffix(a, "*"); ok {
			if strings.HasPrefix(w, p) {
				return true
			}
		} else if w == a {
			return true
		}
	}
	return false
}

// rewritePhrases applies lang's phrase rules to tokens, in place when it
// can. Tokens of other scripts than the rules' are never matched by them.
func rewritePhrases(tokens []token, lang string) []token {
	rules := phrases[lang]
	for i := range rules {
		tokens = rules[i].apply(tokens)
	}
	return tokens
}

// apply rewrites every match of r in tokens, left to right.
func (r *phraseRule) apply(tokens []token) []token {
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
		return tokens
	}
	return out
}

// match tries r at tokens[i]: it returns the end of the match (exclusive)
// and which tokens from i on belong to the phrase, or nil.
func (r *phraseRule) match(tokens []token, i int) (int, []bool) {
	if !r.matchAt(0, tokens[i].word) {
		return 0, nil
	}
	var matched []bool
	pos, j := 1, i+1
	last := i
	for pos < len(r.pattern) {
		if j >= len(tokens) || j-last-1 > maxPhraseGap {
			return 0, nil
		}
		if r.matchAt(pos, tokens[j].word) {
			if matched == nil {
				matched = make([]bool, 0, 8)
			}
			for len(matched) < j-i {
				matched = append(matched, len(matched) == 0)
			}
			matched = append(matched, true)
			last, pos = j, pos+1
		}
		j++
	}
	if matched == nil {
		matched = []bool{true}
	}
	return last + 1, matched
}
