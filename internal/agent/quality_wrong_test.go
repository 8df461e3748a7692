package agent

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"parley/internal/domain"
)

// outcome is how the agent met one question of a conversation set.
type outcome int

const (
	answered  outcome = iota // it answered (right or wrong topic)
	clarified                // it asked "did you mean…?"
	didntKnow                // it said it does not know
)

// classify tells the three kinds of reply apart.
func classify(r Reply, lang string) outcome {
	switch {
	case r.Text == phrasesFor(lang).dontKnow:
		return didntKnow
	case isClarification(r, lang):
		return clarified
	}
	return answered
}

func isClarification(r Reply, lang string) bool { return r.Text == phrasesFor(lang).didYouMean }

// wrongScore is one language's result on a set that measures wrong answers
// as seriously as misses (kb_heldout8.json, kb_tune8.json).
type wrongScore struct {
	paraphrases, right, paraClarified, paraDontKnow int
	outside, wrong, outClarified, outDontKnow       int
	wrongByKind, outsideByKind                      map[string]int
}

// evaluateWrong answers a conversation set: paraphrases of questions the
// knowledge answers (top-1 right, or asked about, or not known) and
// questions outside the knowledge, off-topic or looking like an entry
// (answered = a wrong answer, asked about, not known).
func evaluateWrong(t *testing.T, d qualityData, kb *KB, set conversationSet) map[string]*wrongScore {
	t.Helper()
	scores := make(map[string]*wrongScore)
	for _, l := range []string{"en", "ro", "ru"} {
		scores[l] = &wrongScore{wrongByKind: map[string]int{}, outsideByKind: map[string]int{}}
	}
	ask := func(text, lang string) Reply {
		r, err := kb.Respond(context.Background(), Request{Agent: domain.Agent{ID: "shop", ChatbotName: "Lumi"}, Text: text, Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, q := range set.Questions {
		s := scores[q.Lang]
		s.paraphrases++
		r := ask(q.Text, q.Lang)
		switch classify(r, q.Lang) {
		case clarified:
			s.paraClarified++
		case didntKnow:
			s.paraDontKnow++
		default:
			if topicOf(d, q.Lang, r.Text) == q.Topic {
				s.right++
			} else if testing.Verbose() {
				t.Logf("wrong %s %q → %q", q.Lang, q.Text, topicOf(d, q.Lang, r.Text))
			}
		}
	}
	for _, q := range set.Outside {
		s := scores[q.Lang]
		s.outside++
		s.outsideByKind[q.Kind]++
		r := ask(q.Text, q.Lang)
		switch classify(r, q.Lang) {
		case clarified:
			s.outClarified++
		case didntKnow:
			s.outDontKnow++
		default:
			if topicOf(d, q.Lang, r.Text) == "" {
				continue // small talk's own reply ("salut, ce mai faci?")
			}
			s.wrong++
			s.wrongByKind[q.Kind]++
			if testing.Verbose() {
				t.Logf("answered %s %s %q → %q", q.Lang, q.Kind, q.Text, topicOf(d, q.Lang, r.Text))
			}
		}
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("lang  paraphrases: right  did-you-mean  don't-know | outside: wrong  did-you-mean  don't-know | wrong: off-topic  look-alike")
	for _, l := range []string{"en", "ro", "ru"} {
		s := scores[l]
		t.Logf("%-4s  %3d: %5.1f%%  %5.1f%%  %5.1f%% | %3d: %5.1f%%  %5.1f%%  %5.1f%% | %d/%d  %d/%d", l,
			s.paraphrases, pct(s.right, s.paraphrases), pct(s.paraClarified, s.paraphrases), pct(s.paraDontKnow, s.paraphrases),
			s.outside, pct(s.wrong, s.outside), pct(s.outClarified, s.outside), pct(s.outDontKnow, s.outside),
			s.wrongByKind["off_topic"], s.outsideByKind["off_topic"], s.wrongByKind["lookalike"], s.outsideByKind["lookalike"])
	}
	return scores
}

// conversationSet is a set of paraphrases (questions) and questions outside
// the knowledge (off_topic, with kind "off_topic" or "lookalike").
type conversationSet struct {
	Questions []question `json:"questions"`
	Outside   []struct {
		Lang, Kind, Text string
	} `json:"off_topic"`
}

// heldOut8Floor holds held-out set 8 to its level: at least this share of
// paraphrases answered right, at most this share of off-topic and
// look-alike questions answered, per language. They are regression
// floors, not the goal (95% right, 5% wrong, which a lexical engine does
// not reach on this set: docs/agent.md). Raise them as the engine
// improves; never loosen them to pass.
var heldOut8Floor = map[string]struct{ right, wrong float64 }{
	"en": {0.88, 0.48},
	"ro": {0.91, 0.50},
	"ru": {0.83, 0.47},
}

// TestWrongAnswersHeldOut runs held-out set 8 (kb_heldout8.json): per
// language 60 paraphrases of questions the knowledge answers, 60 off-topic
// questions and at least 60 look-alikes, which share words with an entry
// but ask what the knowledge lacks ("do you sell cars?" beside "Do you sell
// gift cards?"). It was written before the changes of issue 16 and
// measured on arrival; the rules for asking and answering were tuned on
// the other sets (kb_quality.json, held-out 1–7) and only measured here.
func TestWrongAnswersHeldOut(t *testing.T) {
	checkWrongAnswers(t, "testdata/kb_heldout8.json", heldOut8Floor, 60, 60)
}

// checkWrongAnswers runs a held-out conversation set and holds each
// language to its floors; the set must have at least minOff off-topic
// questions and minLook look-alikes per language, and 60 paraphrases.
func checkWrongAnswers(t *testing.T, file string, floors map[string]struct{ right, wrong float64 }, minOff, minLook int) {
	t.Helper()
	d, entries := loadQuality(t)
	var set conversationSet
	loadJSON(t, file, &set)
	for l, s := range evaluateWrong(t, d, staticKB(t, entries), set) {
		if s.paraphrases < 60 || s.outsideByKind["off_topic"] < minOff || s.outsideByKind["lookalike"] < minLook {
			t.Errorf("%s: %d paraphrases, %v outside; want 60, %d off-topic and %d look-alikes", l, s.paraphrases, s.outsideByKind, minOff, minLook)
		}
		right := float64(s.right) / float64(s.paraphrases)
		wrong := float64(s.wrong) / float64(s.outside)
		if f := floors[l]; right < f.right || wrong > f.wrong {
			t.Errorf("%s: %.1f%% of paraphrases right (floor %.0f%%), %.1f%% of outside questions answered (at most %.1f%%)",
				l, 100*right, 100*f.right, 100*wrong, 100*f.wrong)
		}
	}
}

// heldOut9Floor holds held-out set 9 (kb_heldout9.json) to its level. Set
// 9 is blind: written for issue 16 by a separate session that saw only the
// knowledge base (never the engine, its word lists or other sets), after
// the engine's rules were chosen, and measured, never tuned on: on arrival
// on the engine before issue 16 (f265d5a) 86.7 / 86.7 / 86.7% right and
// 45.0 / 53.3 / 45.0% of outside questions answered; with issue 16's rules
// the values below. Raise them as the engine improves; never loosen them.
var heldOut9Floor = map[string]struct{ right, wrong float64 }{
	"en": {0.83, 0.334},
	"ro": {0.85, 0.367},
	"ru": {0.81, 0.30},
}

// TestWrongAnswersBlind runs held-out set 9: per language 60 paraphrases
// (three for each of the 20 topics), 30 off-topic questions and 30
// look-alikes.
func TestWrongAnswersBlind(t *testing.T) {
	checkWrongAnswers(t, "testdata/kb_heldout9.json", heldOut9Floor, 30, 30)
}

func loadJSON(t *testing.T, file string, v any) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// tuningMaxWrong is the share of the tuning sets' off-topic questions the
// agent may answer in any language (26–34% on arrival, before the "did
// you mean" rules; 28 / 18 / 13% with them).
const tuningMaxWrong = 0.28

// TestWrongAnswersTuning measures the same on the tuning sets: the
// development set and held-out sets 1–7, whose questions had all been
// looked at before the "did you mean" rules were chosen on them (their
// off-topic questions mix off-topic and look-alike ones). It keeps the
// share answered at the level those rules reached.
func TestWrongAnswersTuning(t *testing.T) {
	d, entries := loadQuality(t)
	var set conversationSet
	for _, q := range d.Questions {
		set.Questions = append(set.Questions, question(q))
	}
	add := func(off []struct{ Lang, Text string }) {
		for _, q := range off {
			set.Outside = append(set.Outside, struct{ Lang, Kind, Text string }{q.Lang, "off_topic", q.Text})
		}
	}
	add(d.OffTopic)
	for file := range heldOutFloor {
		held := loadHeldOut(t, file)
		set.Questions = append(set.Questions, held.Questions...)
		add(held.OffTopic)
	}
	for l, s := range evaluateWrong(t, d, staticKB(t, entries), set) {
		if wrong := float64(s.wrong) / float64(s.outside); wrong > tuningMaxWrong {
			t.Errorf("%s: %.1f%% of off-topic questions answered, want at most %.0f%%", l, 100*wrong, 100*tuningMaxWrong)
		}
	}
}
