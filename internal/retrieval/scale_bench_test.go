package retrieval

import (
	"maps"
	"slices"
	"testing"
	"time"

	"parley/internal/retrieval/retrievaltest"
)

// Issue 16: an agent whose knowledge is a website of 2,000 pages, 10,000
// passages in all (about 2.4 million characters, a little more than the
// two default bounds together allow), in English, Romanian and Russian.
// Each iteration is one visitor's question, timed alone, so the p50 and
// p99 per question can be reported (p50-µs, p99-µs): questions about the
// site ("answered": words of a page, some misspelt, some with a word the
// site lacks), questions it cannot answer ("off-topic"), and the two
// mixed three to one; the last also with every word unseen (forgetWords).
// The agent package measures the same through the
// knowledge-base agent (Respond, Passages).
func BenchmarkSearch10000Passages(b *testing.B) {
	site := retrievaltest.Site(2000, 5, 180, 1)
	ix := Build(site)
	if len(ix.units) != 10000 {
		b.Fatalf("the site has %d passages, want 10,000", len(ix.units))
	}
	answered := retrievaltest.Queries(site, 3000, 1)
	offTopic := retrievaltest.OffTopic(1000, 1)
	found := 0
	for _, q := range answered {
		if len(ix.Search(q.Text, q.Lang, 5)) > 0 {
			found++
		}
	}
	if found < len(answered)*9/10 {
		b.Fatalf("only %d of %d questions about the site found anything", found, len(answered))
	}
	mix := slices.Concat(answered, offTopic)
	for _, set := range []struct {
		name    string
		queries []retrievaltest.Query
		forget  bool
	}{
		{"answered", answered, false}, {"off-topic", offTopic, false}, {"mix", mix, false},
		{"mix, words unseen", mix, true},
	} {
		queries := set.queries
		b.Run(set.name, func(b *testing.B) {
			took := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			loop(b, func(i int) {
				q := queries[(i*7919)%len(queries)] // a stride, so the mix interleaves
				if set.forget {
					forgetWords(ix)
				}
				start := time.Now()
				ix.Search(q.Text, q.Lang, 8)
				took = append(took, time.Since(start))
			})
			retrievaltest.ReportPercentiles(b, took)
		})
	}
}

// forgetWords empties the indexes' memos of resolved query words (memo.go),
// so that a question's words are looked up, typos corrected, as the first
// time a visitor uses them: the worst case of a search.
func forgetWords(ix *Index) {
	for _, li := range append(slices.Collect(maps.Values(ix.langs)), ix.other) {
		if li == nil {
			continue
		}
		li.memo.mu.Lock()
		li.memo.words = nil
		li.memo.mu.Unlock()
	}
}
