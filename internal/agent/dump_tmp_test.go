package agent

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"parley/internal/domain"
)

func TestDumpTmp(t *testing.T) {
	d, entries := loadQuality(t)
	kb := staticKB(t, entries)
	ix, err := kb.index(t.Context(), domain.Agent{ID: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/agenttalk/feat.tsv")
	defer f.Close()
	topicOfHit := func(lang, passage string) string { return topicOf(d, lang, passage) }
	row := func(set, lang, kind, topic, text string) {
		talk := parseSmallTalk(text)
		hits := ix.Search(talk.question(text), lang, 8)
		if len(hits) == 0 {
			fmt.Fprintf(f, "%s\t%s\t%s\t0\t0\t0\t0\t1\t0\t0\t0\t%q\t0\n", set, lang, kind, text)
			return
		}
		h := hits[0]
		right := 0
		if topic != "" && topicOfHit(lang, h.Passage) == topic {
			right = 1
		}
		c2, r2, h2 := 0.0, 0.0, 0.0
		for _, o := range hits[1:] {
			if topicOfHit(lang, o.Passage) != topicOfHit(lang, h.Passage) {
				c2, r2, h2 = o.Confidence, o.Score/h.Score, o.HeadCoverage
				break
			}
		}
		fmt.Fprintf(f, "%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%q\t%.3f\n", set, lang, kind, right, h.Confidence, h.HeadCoverage, h.QueryCoverage, h.Unknown, c2, r2, h2, strings.ReplaceAll(text, "\t", " "), h.Direct)
	}
	for _, q := range d.Questions {
		row("dev", q.Lang, "P", q.Topic, q.Text)
	}
	for _, q := range d.OffTopic {
		row("dev", q.Lang, "O", "", q.Text)
	}
	for i := 1; i <= 7; i++ {
		file := "kb_heldout.json"
		if i > 1 {
			file = fmt.Sprintf("kb_heldout%d.json", i)
		}
		h := loadHeldOut(t, file)
		for _, q := range h.Questions {
			row(file, q.Lang, "P", q.Topic, q.Text)
		}
		for _, q := range h.OffTopic {
			row(file, q.Lang, "O", "", q.Text)
		}
	}
}
