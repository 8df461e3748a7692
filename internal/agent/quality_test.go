package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"parley/internal/domain"
	"parley/internal/retrieval"
)

// qualityData is testdata/kb_quality.json: a small shop's knowledge base in
// English, Romanian and Russian, visitor questions labelled with the topic
// that answers them, and questions the shop cannot answer.
type qualityData struct {
	QA []struct {
		Topic, Lang, Question, Answer string
	} `json:"qa"`
	Documents []struct {
		Lang, Title string
		Sections    []struct{ Topic, Heading, Text string }
	} `json:"documents"`
	Questions []struct{ Topic, Lang, Kind, Text string } `json:"questions"`
	OffTopic  []struct{ Lang, Text string }              `json:"off_topic"`
}

// Pass marks: top-1 accuracy on the labelled questions, and the share of
// off-topic questions that get the don't-know reply, in every language.
const (
	minAccuracy  = 0.90
	minRejection = 0.80
)

// heldOutFloor is a regression floor per held-out set, not the goal: the
// goal is 0.90 on unseen questions too. Each set was measured once on
// arrival; later changes looked at its misses, so only that first
// measurement (docs/agent.md keeps them) tells how the engine does on
// questions it has never met. Raise the floors as the engine improves;
// never lower them to pass.
var heldOutFloor = map[string]float64{
	"kb_heldout.json":  0.90,
	"kb_heldout2.json": 0.90,
	"kb_heldout3.json": 0.90,
	"kb_heldout4.json": 0.75,
	"kb_heldout5.json": 0.90,
	"kb_heldout6.json": 0.90,
	"kb_heldout7.json": 0.90,
}

func loadQuality(t *testing.T) (qualityData, []domain.KnowledgeEntry) {
	t.Helper()
	raw, err := os.ReadFile("testdata/kb_quality.json")
	if err != nil {
		t.Fatal(err)
	}
	var d qualityData
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var entries []domain.KnowledgeEntry
	for _, e := range d.QA {
		entries = append(entries, domain.KnowledgeEntry{Kind: domain.KindQA, Question: e.Question, Answer: e.Answer, Lang: e.Lang})
	}
	for _, doc := range d.Documents {
		var b strings.Builder
		b.WriteString("# " + doc.Title + "\n\n")
		for _, s := range doc.Sections {
			b.WriteString("## " + s.Heading + "\n\n" + s.Text + "\n\n")
		}
		entries = append(entries, domain.KnowledgeEntry{Kind: domain.KindDocument, Title: doc.Title, Text: b.String(), Lang: doc.Lang})
	}
	return d, entries
}

// topicOf names the topic a reply text comes from: a Q&A answer, or a part
// of a document section. "" when it is neither (the don't-know reply).
func topicOf(d qualityData, lang, reply string) string {
	for _, e := range d.QA {
		if e.Lang == lang && e.Answer == reply {
			return e.Topic
		}
	}
	for _, doc := range d.Documents {
		for _, s := range doc.Sections {
			if doc.Lang == lang && strings.Contains(s.Text, reply) {
				return s.Topic
			}
		}
	}
	return ""
}

// wordSet is a text's folded words, in order of first use, without
// punctuation: two texts with the same set are the same question.
func wordSet(s string) []string {
	words := strings.FieldsFunc(retrieval.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	slices.Sort(words)
	return slices.Compact(words)
}

// TestQualityDataHonest keeps the benchmark a benchmark: every topic has a
// stored entry in each language and at least two visitor questions per
// language, and no question of any set (development or held-out) is its
// stored question reworded only in case, diacritics, punctuation or word
// order.
func TestQualityDataHonest(t *testing.T) {
	d, _ := loadQuality(t)
	stored := make(map[[2]string]string) // topic, lang → question or heading
	for _, e := range d.QA {
		stored[[2]string{e.Topic, e.Lang}] = e.Question
	}
	for _, doc := range d.Documents {
		for _, s := range doc.Sections {
			stored[[2]string{s.Topic, doc.Lang}] = s.Heading
		}
	}
	asked := make(map[[2]string]int)
	var all []question
	for _, q := range d.Questions {
		all = append(all, question(q))
	}
	for file := range heldOutFloor {
		all = append(all, loadHeldOut(t, file).Questions...)
	}
	for _, file := range []string{"testdata/kb_heldout8.json", "testdata/kb_heldout9.json"} {
		var set conversationSet
		loadJSON(t, file, &set)
		all = append(all, set.Questions...)
	}
	for i, q := range all {
		key := [2]string{q.Topic, q.Lang}
		s, ok := stored[key]
		if !ok {
			t.Errorf("question %q: no stored %s entry for topic %q", q.Text, q.Lang, q.Topic)
		}
		if slices.Equal(wordSet(q.Text), wordSet(s)) {
			t.Errorf("question %q copies the stored question %q", q.Text, s)
		}
		if i < len(d.Questions) {
			asked[key]++
		}
	}
	topics := make(map[string]bool)
	for key := range stored {
		topics[key[0]] = true
		if asked[key] < 2 {
			t.Errorf("topic %q has %d %s questions, want at least 2", key[0], asked[key], key[1])
		}
	}
	qaTopics := make(map[string]int)
	for _, e := range d.QA {
		qaTopics[e.Topic]++
	}
	full := 0
	for _, n := range qaTopics {
		if n == 3 {
			full++
		}
	}
	if full < 15 || len(d.Documents) < 2 {
		t.Errorf("%d topics with Q&A in all three languages and %d documents, want 15 and 2", full, len(d.Documents))
	}
}

// question is a labelled visitor question; Kind is optional.
type question struct{ Topic, Lang, Kind, Text string }

// langScore is one language's result on a question set.
type langScore struct{ right, total, rejected, offTopic, suggestions int }

func (s *langScore) accuracy() float64  { return float64(s.right) / float64(max(s.total, 1)) }
func (s *langScore) rejection() float64 { return float64(s.rejected) / float64(max(s.offTopic, 1)) }

// evaluate answers every question through the KB agent and measures, per
// language, how often the reply is the right topic's answer (top-1
// accuracy) and how often an off-topic question gets the don't-know reply.
// It logs each miss and a table.
func evaluate(t *testing.T, d qualityData, entries []domain.KnowledgeEntry, questions []question, offTopic []struct{ Lang, Text string }) map[string]*langScore {
	t.Helper()
	kb := staticKB(t, entries)
	ask := func(text, lang string) Reply {
		r, err := kb.Respond(context.Background(), Request{Agent: domain.Agent{ID: "shop"}, Text: text, Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	scores := make(map[string]*langScore) // by language, and by language and kind
	get := func(key string) *langScore {
		if scores[key] == nil {
			scores[key] = &langScore{}
		}
		return scores[key]
	}
	var kinds []string
	for _, q := range questions {
		if q.Kind != "" && !slices.Contains(kinds, q.Kind) {
			kinds = append(kinds, q.Kind)
		}
		s, sk := get(q.Lang), get(q.Lang+"/"+q.Kind)
		s.total++
		sk.total++
		r := ask(q.Text, q.Lang)
		if got := topicOf(d, q.Lang, r.Text); got == q.Topic && !r.Unanswered {
			s.right++
			sk.right++
			s.suggestions += len(r.Options)
		} else {
			t.Logf("miss %s %-16s %-13s %q → %q", q.Lang, q.Topic, q.Kind, q.Text, got)
		}
	}
	for _, q := range offTopic {
		s := get(q.Lang)
		s.offTopic++
		// Turned away: any reply that is not from the knowledge (I don't
		// know, did you mean…?, or small talk's own reply to "hi, how
		// are you?").
		if r := ask(q.Text, q.Lang); topicOf(d, q.Lang, r.Text) == "" {
			s.rejected++
		} else {
			t.Logf("off-topic answered %s %q → %q", q.Lang, q.Text, topicOf(d, q.Lang, r.Text))
		}
	}
	t.Logf("lang  questions  top-1    off-topic rejected  suggestions/answer  top-1 by kind")
	for _, l := range []string{"en", "ro", "ru"} {
		s := get(l)
		byKind := ""
		for _, k := range kinds {
			if sk := scores[l+"/"+k]; sk != nil {
				byKind += fmt.Sprintf("  %s %d/%d", k, sk.right, sk.total)
			}
		}
		t.Logf("%-4s  %9d  %5.1f%%   %2d/%-2d (%5.1f%%)       %.2f              %s", l, s.total, 100*s.accuracy(),
			s.rejected, s.offTopic, 100*s.rejection(), float64(s.suggestions)/float64(max(s.right, 1)), byKind)
	}
	return scores
}

// TestKnowledgeQuality is the development set: the questions of
// kb_quality.json, which the analysis (synonyms, word forms) was tuned on.
func TestKnowledgeQuality(t *testing.T) {
	d, entries := loadQuality(t)
	var qs []question
	for _, q := range d.Questions {
		qs = append(qs, question(q))
	}
	for l, s := range evaluate(t, d, entries, qs, d.OffTopic) {
		if strings.Contains(l, "/") {
			continue
		}
		if s.accuracy() < minAccuracy {
			t.Errorf("%s: top-1 accuracy %.1f%%, want at least %.0f%%", l, 100*s.accuracy(), 100*minAccuracy)
		}
		if s.rejection() < minRejection {
			t.Errorf("%s: %.0f%% of off-topic questions rejected, want at least %.0f%%", l, 100*s.rejection(), 100*minRejection)
		}
	}
}

// heldOut is a held-out question set.
type heldOut struct {
	Questions []question                    `json:"questions"`
	OffTopic  []struct{ Lang, Text string } `json:"off_topic"`
}

func loadHeldOut(t *testing.T, file string) heldOut {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var held heldOut
	if err := json.Unmarshal(raw, &held); err != nil {
		t.Fatal(err)
	}
	return held
}

// TestKnowledgeQualityHeldOut runs the held-out sets, each written by a
// helper that saw only the knowledge base, never the engine or other
// questions. Each was measured once as it arrived, before anything was
// changed for it; docs/agent.md reports those first numbers beside today's.
// Set 4 asks the writer to describe situations in the visitor's own words
// rather than the shop's terms, the hardest style for word matching.
func TestKnowledgeQualityHeldOut(t *testing.T) {
	d, entries := loadQuality(t)
	for _, file := range slices.Sorted(maps.Keys(heldOutFloor)) {
		t.Run(file, func(t *testing.T) {
			held := loadHeldOut(t, file)
			for l, s := range evaluate(t, d, entries, held.Questions, held.OffTopic) {
				if strings.Contains(l, "/") {
					continue
				}
				if s.accuracy() < heldOutFloor[file] {
					t.Errorf("%s: held-out top-1 accuracy %.1f%%, below the floor of %.0f%%", l, 100*s.accuracy(), 100*heldOutFloor[file])
				}
			}
		})
	}
}
