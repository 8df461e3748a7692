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
}

// evaluateWrong answers a conversation set: paraphrases of questions the
// knowledge answers (top-1 right, or asked about, or not known) and
// questions outside the knowledge, off-topic or looking like an entry
// (answered = a wrong answer, asked about, not known).
func evaluateWrong(t *testing.T, d qualityData, kb *KB, set conversationSet) map[string]*wrongScore {
	t.Helper()
	scores := map[string]*wrongScore{"en": {}, "ro": {}, "ru": {}}
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
		r := ask(q.Text, q.Lang)
		switch classify(r, q.Lang) {
		case clarified:
			s.outClarified++
		case didntKnow:
			s.outDontKnow++
		default:
			s.wrong++
			if testing.Verbose() {
				t.Logf("answered %s %s %q → %q", q.Lang, q.Kind, q.Text, topicOf(d, q.Lang, r.Text))
			}
		}
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("lang  paraphrases: right  did-you-mean  don't-know | outside: wrong  did-you-mean  don't-know")
	for _, l := range []string{"en", "ro", "ru"} {
		s := scores[l]
		t.Logf("%-4s  %3d: %5.1f%%  %5.1f%%  %5.1f%% | %3d: %5.1f%%  %5.1f%%  %5.1f%%", l,
			s.paraphrases, pct(s.right, s.paraphrases), pct(s.paraClarified, s.paraphrases), pct(s.paraDontKnow, s.paraphrases),
			s.outside, pct(s.wrong, s.outside), pct(s.outClarified, s.outside), pct(s.outDontKnow, s.outside))
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

func TestWrongAnswersHeldOut(t *testing.T) {
	d, entries := loadQuality(t)
	var set conversationSet
	loadJSON(t, "testdata/kb_heldout8.json", &set)
	evaluateWrong(t, d, staticKB(t, entries), set)
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
