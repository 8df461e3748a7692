package retrieval

import (
	"testing"

	"parley/internal/retrieval/retrievaltest"
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
