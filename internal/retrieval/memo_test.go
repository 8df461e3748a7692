package retrieval

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"parley/internal/retrieval/retrievaltest"
)

// memoQueries mix what resolve tells apart: known words, typos of known
// words and of stems, a misspelt synonym, numbers, stop-word typos, words
// repeated in one query, and the same words under the three languages
// (Latin words stem by the query's language, Cyrillic ones as Russian).
var memoQueries = []string{
	"How much does shipping cost?", "how much dose shiping cost", "shipping shipping shipping",
	"gurantee for my order", "order 12345 returned 30 days", "teh return form",
	"Cât costă livrarea?", "cat costa livrarea", "Сколько стоит доставка?", "скока стоит доставка",
	"return товар livrarea", "When are you open on Sunday", "warranty claim photo",
}

// The memo changes nothing: once an index has answered every query in
// every language, each query gets the same terms and the same hits as it
// does with the memo emptied. (The same index both times: two builds of
// the same entries may differ in the last bit of a head coverage, summed
// over a map.)
func TestWordMemoChangesNothing(t *testing.T) {
	entries := append(retrievaltest.Entries(200, 3), testEntries...)
	var queries []string
	for _, q := range retrievaltest.Queries(entries, 100, 3) {
		queries = append(queries, q.Text)
	}
	queries = append(queries, memoQueries...)
	langs := []string{"en", "ro", "ru", ""}

	ix := Build(entries)
	for _, lang := range langs {
		for _, q := range queries {
			ix.Search(q, lang, 3)
		}
	}
	for _, lang := range langs {
		li := ix.langIndex(lang)
		for _, q := range queries {
			warmTerms, warmHits := li.queryTerms(q, lang), ix.Search(q, lang, 3)
			li.memo = wordMemo{}
			coldTerms := li.queryTerms(q, lang)
			li.memo = wordMemo{}
			coldHits := ix.Search(q, lang, 3)
			if !reflect.DeepEqual(warmTerms, coldTerms) {
				t.Fatalf("%q in %q: remembered terms %+v, fresh %+v", q, lang, warmTerms, coldTerms)
			}
			if !reflect.DeepEqual(warmHits, coldHits) {
				t.Fatalf("%q in %q: hits differ once remembered", q, lang)
			}
		}
	}
}

func TestWordMemoBound(t *testing.T) {
	var m wordMemo
	for i := range 3 * maxMemoWords {
		m.put(word{fmt.Sprint("w", i), "en"}, resolved{main: int32(i)})
		if n := len(m.words); n > maxMemoWords {
			t.Fatalf("%d words remembered, more than %d", n, maxMemoWords)
		}
	}
	last := word{fmt.Sprint("w", 3*maxMemoWords-1), "en"}
	if r, ok := m.get(last); !ok || r.main != int32(3*maxMemoWords-1) {
		t.Errorf("the newest word is not remembered: %+v, %v", r, ok)
	}
}

// Searches share one index and its memo: run at once from many
// goroutines, each gets the hits it gets alone with the memo empty (and
// -race checks the sharing itself).
func TestWordMemoConcurrent(t *testing.T) {
	t.Parallel()
	ix := Build(testEntries)
	langs := []string{"en", "ro", "ru"}
	want := map[string][]Hit{} // lang + query → hits
	for _, lang := range langs {
		li := ix.langIndex(lang)
		for _, q := range memoQueries {
			li.memo = wordMemo{}
			want[lang+q] = ix.Search(q, lang, 3)
		}
		li.memo = wordMemo{}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				q, lang := memoQueries[(g+i)%len(memoQueries)], langs[(g+i/len(memoQueries))%len(langs)]
				if got := ix.Search(q, lang, 3); !reflect.DeepEqual(got, want[lang+q]) {
					t.Errorf("%q in %q from goroutine %d: %+v, alone %+v", q, lang, g, got, want[lang+q])
					return
				}
			}
		})
	}
	wg.Wait()
	for _, lang := range langs {
		if ix.langIndex(lang).memo.words == nil {
			t.Errorf("no word remembered for %q: the memo was not shared", lang)
		}
	}
}
