package agent

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/internal/retrieval"
	"parley/web/i18n"
)

// Small talk: greetings, thanks, goodbyes, "are you a bot?", "ok", a bare
// "yes" or "no". Searching the knowledge for them found nothing, so the
// agent said it did not know, and two of them ("hello", then "thanks")
// handed the visitor to a human. They now get a short friendly reply from
// the catalogues (reply.greeting and the others), in the visitor's
// language, which never counts as unanswered. Small talk around a question
// ("hi, how much is shipping?", "… thanks!") is cut off and the question
// answered: its words would only dilute the search.

// talkKind is what a small-talk phrase does. Higher kinds win when a
// message holds several ("ok, thanks, bye" is a goodbye).
type talkKind int

const (
	talkNone talkKind = iota
	talkFiller
	talkYesNo
	talkAck
	talkGreeting
	talkHowAreYou
	talkBot
	talkThanks
	talkBye
)

// talkPhrase is one phrase of the table: its folded words, what it does,
// the language it marks ("" for words every language uses, "ok"), and
// whether it is small talk only as the whole message (whole).
type talkPhrase struct {
	words []string
	kind  talkKind
	lang  string
	whole bool
}

// smallTalkTable lists the phrases in folded form (lower case, no
// diacritics: retrieval.Fold), common misspellings included; a word of
// five letters or more also matches with one typo (see correctTalkTypos).
var smallTalkTable = buildTalkTable(map[talkKind]map[string][]string{
	talkGreeting: {
		"en": {"hi", "hii", "hiya", "hey", "heya", "hello", "helo", "hallo", "hullo", "howdy", "greetings",
			"good morning", "good afternoon", "good evening", "good day", "hi there", "hello there", "hey there"},
		"ro": {"buna", "buna ziua", "buna dimineata", "buna seara", "salut", "salutare", "salutari", "servus", "neata", "hei", "ziua buna", "sal"},
		"ru": {"привет", "приветик", "приветствую", "здравствуйте", "здравствуй", "здрасте", "здрасьте", "добрый день",
			"доброе утро", "добрый вечер", "доброго дня", "хай", "салют", "здорово"},
	},
	talkHowAreYou: {
		"en": {"how are you", "how are u", "how r u", "how are you doing", "how is it going", "hows it going", "whats up", "sup"},
		"ro": {"ce faci", "ce mai faci", "ce mai faceti", "ce faceti", "cum esti", "cum sunteti", "cum merge"},
		"ru": {"как дела", "как ты", "как вы", "как поживаете", "как жизнь"},
	},
	talkThanks: {
		"en": {"thanks", "thank you", "thank u", "thankyou", "thx", "thnx", "thanx", "tnx", "ty", "thanks a lot", "many thanks",
			"thank you very much", "thank you so much", "thanks so much", "cheers", "much appreciated", "appreciate it", "great thanks", "perfect thanks"},
		"ro": {"multumesc", "multumim", "multumesc mult", "multumesc frumos", "mersi", "mersi mult", "merci", "mulțam", "multam", "ms", "mss", "va multumesc", "iti multumesc"},
		"ru": {"спасибо", "спасибки", "спасибо большое", "большое спасибо", "благодарю", "спс", "пасиб", "пасибо", "сенкс"},
	},
	talkBye: {
		"en": {"bye", "goodbye", "good bye", "bye bye", "see you", "see ya", "cya", "have a nice day", "have a good day", "good night", "take care", "no thanks", "no thank you"},
		"ro": {"la revedere", "pa", "pa pa", "o zi buna", "o seara buna", "noapte buna", "numai bine", "toate cele bune", "ne auzim", "pe curand", "nu multumesc", "nu mersi"},
		"ru": {"пока", "до свидания", "досвидания", "до встречи", "всего доброго", "всего хорошего", "хорошего дня", "спокойной ночи", "счастливо", "нет спасибо"},
	},
	talkBot: {
		"en": {"are you a bot", "are you a robot", "are you real", "are you human", "are you a human", "are you a person", "are you a real person",
			"is this a bot", "is this a robot", "am i talking to a bot", "am i talking to a robot", "am i talking to a human", "are you ai", "are you an ai",
			"who are you", "what are you", "whats your name", "what is your name"},
		"ro": {"esti un bot", "esti bot", "esti robot", "esti un robot", "sunteti un bot", "sunteti robot", "sunteti un robot", "esti om", "esti un om",
			"sunteti om", "sunteti un om", "esti real", "vorbesc cu un robot", "vorbesc cu un bot", "vorbesc cu un om", "cine esti", "cine sunteti", "cum te cheama", "cum va numiti"},
		"ru": {"ты бот", "вы бот", "ты робот", "вы робот", "это бот", "это робот", "ты человек", "вы человек", "ты живой", "вы живой",
			"я говорю с ботом", "я общаюсь с ботом", "я говорю с роботом", "кто ты", "кто вы", "как тебя зовут", "как вас зовут"},
	},
	talkAck: {
		"":   {"ok", "okay", "okey", "okk", "k", "kk", "ок", "окей", "оке"},
		"en": {"alright", "all right", "got it", "i see", "understood", "=cool", "=great", "=fine", "=perfect", "=nice", "=good", "=sure", "noted"},
		"ro": {"=bine", "=bun", "=perfect", "am inteles", "inteles", "=super", "=excelent", "in regula", "=e bine", "=clar"},
		"ru": {"хорошо", "ладно", "понятно", "понял", "поняла", "ясно", "=отлично", "=супер", "договорились", "ага"},
	},
	talkYesNo: {
		"en": {"yes", "yeah", "yep", "yup", "no", "nope", "nah", "yes please", "=maybe"},
		"ro": {"da", "nu", "da va rog", "=poate"},
		"ru": {"да", "нет", "неа", "угу", "да пожалуйста", "=может быть"},
	},
	talkFiller: {
		"en": {"please", "pls", "plz", "=again", "=so much", "=very much", "=a lot", "=dear", "=there", "=and", "=oh", "=well", "=um", "=hmm"},
		"ro": {"va rog", "te rog", "=si", "=inca o data", "=din nou"},
		"ru": {"пожалуйста", "=ещё раз", "=еще раз", "=и", "=ну", "=а"},
	},
})

// talkTable holds the phrases by their first and by their last word, so a
// message's ends are looked up, not compared with every phrase (small talk
// is checked on every message), and the words of five letters or more,
// which a whole small-talk message may misspell.
type talkTable struct {
	byFirst, byLast map[string][]talkPhrase
	vocab           map[string]bool
	typoWords       [][]rune
}

func buildTalkTable(src map[talkKind]map[string][]string) talkTable {
	var t []talkPhrase
	for kind, byLang := range src {
		for lang, phrases := range byLang {
			for _, p := range phrases {
				// How are you and are you a bot start many real
				// questions ("how are you using my data", "ce faci
				// cu datele mele", "как вы используете…").
				whole := strings.HasPrefix(p, "=") || kind == talkHowAreYou || kind == talkBot
				p = strings.TrimPrefix(p, "=")
				t = append(t, talkPhrase{words: strings.Fields(retrieval.Fold(p)), kind: kind, lang: lang, whole: whole})
			}
		}
	}
	tt := talkTable{byFirst: map[string][]talkPhrase{}, byLast: map[string][]talkPhrase{}, vocab: map[string]bool{}}
	for _, p := range t {
		tt.byFirst[p.words[0]] = append(tt.byFirst[p.words[0]], p)
		tt.byLast[p.words[len(p.words)-1]] = append(tt.byLast[p.words[len(p.words)-1]], p)
		for _, w := range p.words {
			if !tt.vocab[w] && utf8.RuneCountInString(w) >= 5 {
				tt.typoWords = append(tt.typoWords, []rune(w))
			}
			tt.vocab[w] = true
		}
	}
	return tt
}

// smallTalk is what small talk a message holds: kind is the strongest
// kind of its small-talk phrases (talkNone when it has none), lang the
// language they mark ("" when none marks one), and rest the words between
// the leading and trailing small talk ("" when the message is all small
// talk).
type smallTalk struct {
	kind talkKind
	lang string
	rest string
}

// parseSmallTalk reads the small talk of text: all of it when the message
// is nothing else, else what frames a question (greetings, "ok", "no"
// before it; thanks, goodbyes, "please" after it).
func parseSmallTalk(text string) smallTalk {
	words := talkWords(text)
	// Typos are forgiven only when the whole message is small talk:
	// around a question, "where" would be a typo of "there".
	if len(words) <= maxTalkWords {
		fixed := correctTalkTypos(words)
		if st, n := strip(fixed, false, func(talkPhrase) bool { return true }); n == len(fixed) {
			if st.kind == talkFiller {
				st.kind = talkNone // "please" alone is nothing to answer
			}
			return st
		}
	}
	st, start := strip(words, false, func(p talkPhrase) bool { return !p.whole && p.kind != talkBye })
	end, n := strip(words[start:], true, func(p talkPhrase) bool {
		return !p.whole && (p.kind == talkThanks || p.kind == talkBye || p.kind == talkFiller)
	})
	if start == 0 && n == 0 {
		return smallTalk{} // no small talk: the text is searched as it is
	}
	st.rest = strings.Join(words[start:len(words)-n], " ")
	if end.kind > st.kind {
		st.kind = end.kind
	}
	if st.lang == "" {
		st.lang = end.lang
	}
	return st
}

// strip takes the phrases that allowed admits off the start of words (off
// the end when fromEnd), one after the other, and reports their small talk
// and how many words they covered.
func strip(words []string, fromEnd bool, allowed func(talkPhrase) bool) (smallTalk, int) {
	var st smallTalk
	n := 0
	for n < len(words) {
		rest := words[n:]
		if fromEnd {
			rest = words[:len(words)-n]
		}
		p, k := longestTalk(rest, fromEnd, allowed)
		if k == 0 {
			break
		}
		st.kind = max(st.kind, p.kind)
		if p.lang != "" && (st.lang == "" || p.kind > talkFiller) {
			st.lang = p.lang
		}
		n += k
	}
	return st, n
}

// talkWords are text's folded words, apostrophes dropped ("what's" is
// "whats"), so the table needs no punctuation.
func talkWords(text string) []string {
	f := strings.ReplaceAll(strings.ReplaceAll(retrieval.Fold(text), "'", ""), "’", "")
	return strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// maxTalkWords is the longest message read as small talk as a whole.
const maxTalkWords = 8

// correctTalkTypos returns words with each word that is not in the table
// but one typo from a table word of five letters or more replaced by it
// ("thnaks", "multumsc", "здраствуйте"). words itself is left alone.
func correctTalkTypos(words []string) []string {
	var out []string
	for i, w := range words {
		if smallTalkTable.vocab[w] {
			continue
		}
		r := []rune(w)
		if len(r) < 4 {
			continue
		}
		for _, v := range smallTalkTable.typoWords {
			if withinOneEdit(r, v) {
				if out == nil {
					out = slices.Clone(words)
				}
				out[i] = string(v)
				break
			}
		}
	}
	if out == nil {
		return words
	}
	return out
}

// longestTalk finds the longest phrase allowed admits at the start of
// words (at the end when fromEnd) and how many words it covers; 0 when
// none fits.
func longestTalk(words []string, fromEnd bool, allowed func(talkPhrase) bool) (talkPhrase, int) {
	var best talkPhrase
	n := 0
	if len(words) == 0 {
		return best, 0
	}
	cands := smallTalkTable.byFirst[words[0]]
	if fromEnd {
		cands = smallTalkTable.byLast[words[len(words)-1]]
	}
	for _, p := range cands {
		if len(p.words) <= n || len(p.words) > len(words) || !allowed(p) {
			continue
		}
		at := words[:len(p.words)]
		if fromEnd {
			at = words[len(words)-len(p.words):]
		}
		if slices.Equal(at, p.words) {
			best, n = p, len(p.words)
		}
	}
	return best, n
}

// withinOneEdit reports whether a and b differ by at most one insertion,
// deletion, substitution or swap of neighbours.
func withinOneEdit(a, b []rune) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true
	}
	if len(a) == len(b) {
		if slices.Equal(a[i+1:], b[i+1:]) {
			return true // one changed letter
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
	}
	return slices.Equal(a[i:], b[i+1:])
}

// only reports whether the message was small talk and nothing else.
func (st smallTalk) only() bool { return st.kind != talkNone && st.rest == "" }

// question is what of text the knowledge should be searched for: text
// without the small talk around it.
func (st smallTalk) question(text string) string {
	if st.kind == talkNone || st.rest == "" {
		return text
	}
	return st.rest
}

// smallTalkReply is the reply to a message that is all small talk, in the
// language its phrases mark when that is Romanian or Russian (a visitor
// writing "привет" in an English widget is answered in Russian), else in
// the widget's language: English words like "ok" or "hello" are used by
// speakers of every language.
func smallTalkReply(st smallTalk, name, lang string) Reply {
	if st.lang == "ro" || st.lang == "ru" {
		lang = st.lang
	}
	name = strings.TrimSpace(name)
	named := func(key string) string {
		if name == "" {
			return i18n.Text(lang, key+"_anon")
		}
		return fmt.Sprintf(i18n.Text(lang, key), name)
	}
	var text string
	switch st.kind {
	case talkGreeting:
		text = named("reply.greeting")
	case talkHowAreYou:
		text = i18n.Text(lang, "reply.how_are_you")
	case talkBot:
		text = named("reply.bot")
	case talkThanks:
		text = i18n.Text(lang, "reply.thanks")
	case talkBye:
		text = i18n.Text(lang, "reply.bye")
	case talkAck:
		text = i18n.Text(lang, "reply.ack")
	default:
		text = i18n.Text(lang, "reply.yes_no")
	}
	return Reply{Text: text}
}
