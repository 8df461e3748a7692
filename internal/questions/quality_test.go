package questions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"parley/internal/retrieval"
)

// labelledPair is two questions a person labelled as the same question
// (one knowledge entry answers both) or not.
type labelledPair struct {
	a, b string
	same bool
}

// loadPairs reads a pairs file of testdata (format in its header) into
// pairs per language.
func loadPairs(t testing.TB, name string) map[string][]labelledPair {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := make(map[string][]labelledPair)
	lang := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "lang "):
			lang = strings.TrimSpace(strings.TrimPrefix(line, "lang "))
		default:
			parts := strings.Split(line, "|")
			if len(parts) != 3 || lang == "" {
				t.Fatalf("%s:%d: want \"same|diff | a | b\" after a lang line", name, n)
			}
			kind := strings.TrimSpace(parts[0])
			if kind != "same" && kind != "diff" {
				t.Fatalf("%s:%d: kind %q", name, n, kind)
			}
			out[lang] = append(out[lang], labelledPair{strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2]), kind == "same"})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// score is precision and recall of calling pairs the same.
type score struct {
	truePos, falsePos, falseNeg, pairs, nonPairs int
}

func (s *score) add(labelSame, predicted bool) {
	switch {
	case labelSame && predicted:
		s.truePos++
	case labelSame:
		s.falseNeg++
	case predicted:
		s.falsePos++
	}
	if labelSame {
		s.pairs++
	} else {
		s.nonPairs++
	}
}

func (s score) precision() float64 {
	if s.truePos+s.falsePos == 0 {
		return 1
	}
	return float64(s.truePos) / float64(s.truePos+s.falsePos)
}

func (s score) recall() float64 {
	if s.pairs == 0 {
		return 0
	}
	return float64(s.truePos) / float64(s.pairs)
}

func (s score) String() string {
	return fmt.Sprintf("precision %.3f (%d of %d called same), recall %.3f (%d of %d pairs); %d non-pairs",
		s.precision(), s.truePos, s.truePos+s.falsePos, s.recall(), s.truePos, s.pairs, s.nonPairs)
}

// pairScore scores Same on each labelled pair alone. lang is what the
// items say of their language ("" to let the text decide).
func pairScore(pairs []labelledPair, lang string, miss func(labelledPair)) score {
	var s score
	for _, p := range pairs {
		got := Same(Item{p.a, lang}, Item{p.b, lang})
		s.add(p.same, got)
		if got != p.same && miss != nil {
			miss(p)
		}
	}
	return s
}

// groupScore scores GroupAll the way owners see it: every question of a
// language's pairs grouped together (each distinct text once), a pair
// counted the same when its two questions end in one group. Unlike
// pairScore, it counts the chains a group can grow along: two questions
// each the Same as a third are grouped even when they differ.
func groupScore(pairs []labelledPair, lang string) score {
	index := make(map[string]int)
	var items []Item
	for _, p := range pairs {
		for _, text := range []string{p.a, p.b} {
			if _, ok := index[text]; !ok {
				index[text] = len(items)
				items = append(items, Item{text, lang})
			}
		}
	}
	groupOf := make([]int, len(items))
	for g, grp := range GroupAll(items) {
		for _, m := range grp.Members {
			groupOf[m] = g
		}
	}
	var s score
	for _, p := range pairs {
		s.add(p.same, groupOf[index[p.a]] == groupOf[index[p.b]])
	}
	return s
}

// The aim for the held-out set was precision 0.95 and recall 0.85 in every
// language; lexical grouping does not reach it (docs/agent.md, "Grouping
// questions", has the numbers and why). heldOutFloor keeps each language
// at the level first measured on the held-out set, for Same and for
// GroupAll: a regression floor, not a goal. Raise it when the grouping
// improves; never lower it to pass, and never tune on the held-out set.
//
// Raised by lane C2 (second tuning set, more visitor vocabulary) to what it
// measured; see docs/agent.md for how often the held-out totals were read.
var heldOutFloor = map[string]struct{ precision, recall float64 }{
	"en": {0.84, 0.17},
	"ro": {0.75, 0.14},
	"ru": {0.85, 0.09},
}

// On the tuning set the threshold was chosen to call no hard negative the
// same; tuningRecallFloor keeps the recall it had then.
var tuningRecallFloor = map[string]map[string]float64{
	"tuning.txt":  {"en": 0.31, "ro": 0.22, "ru": 0.15},
	"tuning2.txt": {"en": 0.30, "ro": 0.29, "ru": 0},
}

func TestGroupingHeldOut(t *testing.T) {
	t.Parallel()
	sets := loadPairs(t, "heldout.txt")
	for _, lang := range []string{"en", "ro", "ru"} {
		pairs := sets[lang]
		if n := countSame(pairs); n < 60 || len(pairs)-n < 60 {
			t.Fatalf("%s: %d pairs and %d non-pairs held out, want at least 60 of each", lang, n, len(pairs)-n)
		}
		same := pairScore(pairs, lang, nil)
		grouped := groupScore(pairs, lang)
		unknownLang := pairScore(pairs, "", nil)
		t.Logf("%s Same:               %v", lang, same)
		t.Logf("%s GroupAll (pooled):  %v", lang, grouped)
		t.Logf("%s Same, language \"\": %v", lang, unknownLang)
		floor := heldOutFloor[lang]
		for name, s := range map[string]score{"Same": same, "GroupAll": grouped} {
			if s.precision() < floor.precision || s.recall() < floor.recall {
				t.Errorf("%s %s: precision %.3f, recall %.3f; floors %.2f and %.2f", lang, name, s.precision(), s.recall(), floor.precision, floor.recall)
			}
		}
	}
}

// TestGroupingTuning reports the tuning set's numbers; with
// QUESTIONS_MISSES=1 it also lists its misses, to tune on.
func TestGroupingTuning(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tuning.txt", "tuning2.txt"} {
		t.Run(strings.TrimSuffix(name, ".txt"), func(t *testing.T) {
			t.Parallel()
			testTuningSet(t, name)
		})
	}
}

func testTuningSet(t *testing.T, name string) {
	sets := loadPairs(t, name)
	verbose := os.Getenv("QUESTIONS_MISSES") != ""
	for _, lang := range []string{"en", "ro", "ru"} {
		pairs := sets[lang]
		same := pairScore(pairs, lang, func(p labelledPair) {
			if verbose {
				t.Logf("miss %s same=%v sim=%.2f: %q %v | %q %v", lang, p.same, similarityOf(Item{p.a, lang}, Item{p.b, lang}), p.a, retrieval.Analyze(p.a, lang), p.b, retrieval.Analyze(p.b, lang))
			}
		})
		t.Logf("%s Same:              %v", lang, same)
		t.Logf("%s GroupAll (pooled): %v", lang, groupScore(pairs, lang))
		if same.precision() < 0.95 || same.recall() < tuningRecallFloor[name][lang] {
			t.Errorf("%s %s: precision %.3f, recall %.3f on the set tuned on; floors 0.95 and %.2f", name, lang, same.precision(), same.recall(), tuningRecallFloor[name][lang])
		}
	}
}

// TestGroupingValidation reports testdata/validation.txt: pairs written
// after the rules of lane C2 were chosen, in domains the tuning sets hardly
// touch, to see how far the rules carry to questions they were not chosen
// on (docs/agent.md has the numbers). Not for tuning; its floors are the
// numbers first read.
func TestGroupingValidation(t *testing.T) {
	t.Parallel()
	sets := loadPairs(t, "validation.txt")
	for _, lang := range []string{"en", "ro", "ru"} {
		same := pairScore(sets[lang], lang, nil)
		t.Logf("%s Same:              %v", lang, same)
		t.Logf("%s GroupAll (pooled): %v", lang, groupScore(sets[lang], lang))
		if same.falsePos > 0 || same.truePos < validationMinJoined[lang] {
			t.Errorf("%s: %d wrong joins (none first), %d pairs joined (%d first)", lang, same.falsePos, same.truePos, validationMinJoined[lang])
		}
	}
}

var validationMinJoined = map[string]int{"en": 2, "ro": 3, "ru": 1}

// TestTuningSetsApart checks that no question of the second tuning set or
// the validation set is also a held-out question: those were filtered by a
// script against near-duplicates of held-out texts (without reading them),
// and a later edit must not bring one in. (tuning.txt, older, shares one
// text with heldout.txt, "How do I change my email address?", in pairs of
// other partners; docs/agent.md says so.)
func TestTuningSetsApart(t *testing.T) {
	t.Parallel()
	held := make(map[string]bool)
	for _, pairs := range loadPairs(t, "heldout.txt") {
		for _, p := range pairs {
			held[strings.ToLower(p.a)], held[strings.ToLower(p.b)] = true, true
		}
	}
	for _, name := range []string{"tuning2.txt", "validation.txt"} {
		for lang, pairs := range loadPairs(t, name) {
			for _, p := range pairs {
				for _, text := range []string{p.a, p.b} {
					if held[strings.ToLower(text)] {
						t.Errorf("%s %s: %q is also a held-out question", name, lang, text)
					}
				}
			}
		}
	}
}

func countSame(pairs []labelledPair) int {
	n := 0
	for _, p := range pairs {
		if p.same {
			n++
		}
	}
	return n
}

// similarityOf is the similarity Same compares with the threshold.
func similarityOf(a, b Item) float64 {
	v := newVocabulary()
	qa, qb := analyse(v, a), analyse(v, b)
	v.link()
	return similarity(v, &qa, &qb)
}

// TestGroupingOtherSessions measures the grouping on questions it was
// neither written nor tuned with: the agent's blind set
// (internal/agent/testdata/kb_heldout9.json), written by a separate
// session for issue 16 from a shop's knowledge base alone. Its questions
// are labelled with the knowledge entry that answers them: three
// paraphrases for each of 20 topics per language, and questions outside
// the knowledge. Two questions of one topic count as a pair (one entry
// answers both: the knowledge gaps' sense of the same question); any two
// others as a non-pair. A topic is broader than a question ("shipping"
// holds its cost and its time), so recall here is a floor of the
// grouping's; a join across topics is a plain error.
func TestGroupingOtherSessions(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../agent/testdata/kb_heldout9.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Questions []struct{ Lang, Topic, Text string } `json:"questions"`
		OffTopic  []struct{ Lang, Text string }        `json:"off_topic"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ro", "ru"} {
		var items []Item
		var topics []string
		for _, q := range d.Questions {
			if q.Lang == lang {
				items, topics = append(items, Item{q.Text, lang}), append(topics, q.Topic)
			}
		}
		for i, q := range d.OffTopic {
			if q.Lang == lang {
				items, topics = append(items, Item{q.Text, lang}), append(topics, fmt.Sprint("outside ", i))
			}
		}
		groupOf := make([]int, len(items))
		for g, grp := range GroupAll(items) {
			for _, m := range grp.Members {
				groupOf[m] = g
			}
		}
		var s score
		for i := range items {
			for j := range i {
				s.add(topics[i] == topics[j], groupOf[i] == groupOf[j])
			}
		}
		t.Logf("%s: %v", lang, s)
		if s.falsePos > otherSessionsMaxWrong[lang] {
			t.Errorf("%s: %d joins across topics, at most %d when first measured", lang, s.falsePos, otherSessionsMaxWrong[lang])
		}
		if s.truePos < otherSessionsMinJoined[lang] {
			t.Errorf("%s: %d pairs of a topic joined, %d when first measured", lang, s.truePos, otherSessionsMinJoined[lang])
		}
	}
}

// The other session's set as first measured: joins across topics (of
// 7,080 non-pairs per language) and pairs of a topic joined (of 60).
// Regression floors; never loosened to pass.
var (
	otherSessionsMaxWrong  = map[string]int{"en": 1, "ro": 1, "ru": 0}
	otherSessionsMinJoined = map[string]int{"en": 1, "ro": 0, "ru": 0}
)
