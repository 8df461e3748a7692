package retrieval

import (
	"fmt"
	"slices"
	"testing"

	"parley/internal/domain"
	"parley/internal/retrieval/retrievaltest"
	"parley/internal/testsvc"
)

// The agent answers from an index of its whole knowledge base on every
// message: searching 1,000 entries must stay far below a millisecond.
// Building happens once per edit of the knowledge.

func BenchmarkBuild1000(b *testing.B) {
	entries := retrievaltest.Entries(1000, 1)
	b.ReportAllocs()
	for b.Loop() {
		Build(entries)
	}
}

func BenchmarkSearch1000(b *testing.B) {
	entries := retrievaltest.Entries(1000, 1)
	ix := Build(entries)
	queries := retrievaltest.Queries(entries, 512, 1)
	found := 0
	for _, q := range queries {
		if len(ix.Search(q.Text, q.Lang, 5)) > 0 {
			found++
		}
	}
	if found < len(queries)*9/10 {
		b.Fatalf("only %d of %d generated queries found anything", found, len(queries))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		ix.Search(q.Text, q.Lang, 5)
		i++
	}
}

// loop runs b's iterations of op and reports, besides the wall time, the
// process's CPU time per iteration (cpu-ms/op; the garbage collector's
// included), which a busy machine does not inflate.
func loop(b *testing.B, op func(i int)) {
	c0 := testsvc.CPUTime()
	i := 0
	for b.Loop() {
		i++
		op(i)
	}
	b.ReportMetric(float64(testsvc.CPUTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

// The attack of issue 14, item 7: 100 documents of 200,000 characters,
// then one edit. Before, every edit rebuilt the whole index (refBuild, the
// build as it was); now a Builder analyses the edited document again and
// carries the rest over. Run with -benchtime 1x: a full build takes
// seconds.
func BenchmarkRebuild100Documents(b *testing.B) {
	docs := retrievaltest.Documents(100, 200_000, "en", 1)
	text, edits := docs[42].Text, 0
	edit := func() { edits++; docs[42].Text = text + fmt.Sprintf("\n\nEdited paragraph number %d.", edits) }
	b.Run("before=full build", func(b *testing.B) {
		loop(b, func(int) { edit(); refBuild(docs) })
	})
	b.Run("after=rebuild", func(b *testing.B) {
		bl := NewBuilder()
		bl.Build(docs)
		loop(b, func(int) {
			edit()
			bl.Build(docs)
			if bl.Analysed() != 1 {
				b.Fatalf("analysed %d entries, want the edited one", bl.Analysed())
			}
		})
		b.ReportMetric(float64(bl.Bytes())/(1<<20), "index-MB")
	})
}

// An agent at the default bounds (domain.DefaultKnowledgeMaxChars: five
// documents as long as a document may be) in the costliest shape, without
// a language, so every search language indexes them: a generated manual,
// and gibberish (40-letter random words, each new: the most typo-table keys
// a character can make). "cold" is what the first message after a start
// waits for, "edit" a rebuild in the background after one edit; "before"
// the build as it was, for both.
func BenchmarkAtBound(b *testing.B) {
	for _, kb := range []struct {
		name string
		docs []domain.KnowledgeEntry
	}{
		{"manual", retrievaltest.Documents(5, 200_000, "", 2)},
		{"gibberish", retrievaltest.Gibberish(5, 200_000, 40, 3)},
	} {
		b.Run(kb.name+"/before=reference", func(b *testing.B) {
			loop(b, func(int) { refBuild(kb.docs) })
		})
		b.Run(kb.name+"/cold", func(b *testing.B) {
			var bl *Builder
			loop(b, func(int) { bl = NewBuilder(); bl.Build(kb.docs) })
			b.ReportMetric(float64(bl.Bytes())/(1<<20), "index-MB")
		})
		b.Run(kb.name+"/edit", func(b *testing.B) {
			docs := slices.Clone(kb.docs)
			text := docs[3].Text
			bl := NewBuilder()
			bl.Build(docs)
			loop(b, func(i int) { docs[3].Text = text + fmt.Sprintf("\n\nEdited paragraph number %d.", i); bl.Build(docs) })
		})
	}
}
