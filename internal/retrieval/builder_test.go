package retrieval

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/retrieval/retrievaltest"
)

// sameIndex fails unless got holds what want holds: the same units, and
// per search language the same terms with the same ids, statistics,
// postings, vocabulary, relatives and typo tables. Head information may
// differ in the last bits: the reference sums it in map order.
func sameIndex(t *testing.T, name string, got, want *Index) {
	t.Helper()
	if !slices.Equal(got.entries, want.entries) || !slices.Equal(got.units, want.units) {
		t.Fatalf("%s: entries or units differ", name)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(got.langs)), slices.Sorted(maps.Keys(want.langs))) {
		t.Fatalf("%s: languages %v, want %v", name, slices.Sorted(maps.Keys(got.langs)), slices.Sorted(maps.Keys(want.langs)))
	}
	for l, w := range want.langs {
		sameLang(t, name+"/"+l, got.langs[l], w)
	}
	if (got.other == nil) != (want.other == nil) {
		t.Fatalf("%s: other index %v, want %v", name, got.other != nil, want.other != nil)
	}
	if want.other != nil {
		sameLang(t, name+"/other", got.other, want.other)
	}
}

func sameLang(t *testing.T, name string, got, want *langIndex) {
	t.Helper()
	fail := func(what string) { t.Helper(); t.Fatalf("%s: %s differ", name, what) }
	switch {
	case !slices.Equal(got.units, want.units):
		fail("units")
	case !maps.Equal(got.terms, want.terms):
		fail("terms")
	case !slices.Equal(got.df, want.df) || !slices.Equal(got.idf, want.idf) || got.rareIDF != want.rareIDF:
		fail("statistics")
	case !slices.EqualFunc(got.postings, want.postings, func(a, b []posting) bool { return slices.Equal(a, b) }):
		fail("postings")
	case !slices.Equal(got.words, want.words) || !slices.Equal(got.wordTerm, want.wordTerm) || !slices.Equal(got.wordFreq, want.wordFreq):
		fail("words")
	case !slices.Equal(got.stems, want.stems):
		fail("stems")
	case !slices.EqualFunc(got.headInfo, want.headInfo, func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, b) }):
		fail("head information")
	case want.related != nil && (!slices.Equal(got.related.stems, want.related.stems) || !slices.Equal(got.related.ids, want.related.ids)):
		fail("relatives")
	case !sameFuzzy(got.wordTypos, want.wordTypos), !sameFuzzy(got.stemTypos, want.stemTypos):
		fail("typo tables")
	}
}

// sameFuzzy: the same words and the same keys. The order of keys that
// share a hash does not matter to lookup (it checks them all), so they are
// compared as sets.
func sameFuzzy(got, want *fuzzy) bool {
	if got == nil || want == nil {
		return got == want
	}
	return slices.EqualFunc(got.words, want.words, slices.Equal) && slices.Equal(slices.Sorted(slices.Values(got.keys)), want.keys)
}

// The indexes a Builder makes are the reference build's, field for field,
// for knowledge bases of every shape: generated ones in three languages
// with Q&A entries and documents, and the test entries.
func TestBuildMatchesReference(t *testing.T) {
	t.Parallel()
	bases := map[string][]domain.KnowledgeEntry{
		"test entries": testEntries,
		"generated":    retrievaltest.Entries(300, 7),
		"untagged":     untag(retrievaltest.Entries(150, 8)),
		"english only": retrievaltest.Entries(1, 9),
		"empty":        nil,
	}
	for name, entries := range bases {
		sameIndex(t, name, Build(entries), refBuild(entries))
	}
}

func untag(entries []domain.KnowledgeEntry) []domain.KnowledgeEntry {
	for i := range entries {
		entries[i].Lang = ""
	}
	return entries
}

// A Builder that rebuilds after edits, additions, deletions, moves and
// language changes makes the same index as the reference build of the
// result, and analyses only the entries that changed: an entry is analysed
// once per rule set its searches use (English rules for "en", "ru" and
// untagged searches, Romanian rules for "ro").
func TestBuilderRebuildsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	entries := retrievaltest.Entries(200, 11)
	entries[3].Lang, entries[4].Lang = "", "" // untagged: seen under both rule sets
	b := NewBuilder()
	sameIndex(t, "first build", b.Build(entries), refBuild(entries))
	sets := 0
	for _, e := range entries {
		sets += len(ruleSets(e))
	}
	if b.Analysed() != sets {
		t.Fatalf("first build analysed %d, want every entry under its rule sets (%d)", b.Analysed(), sets)
	}

	steps := []struct {
		name     string
		change   func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry
		analysed int
	}{
		{"nothing changed", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry { return es }, 0},
		{"nothing changed but the copy", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			for i := range es {
				es[i].Answer = strings.Clone(es[i].Answer) // as a new load from the store gives them
			}
			return es
		}, 0},
		{"one answer edited", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			es[10].Answer += " Edited."
			return es
		}, 1},
		{"an untagged entry edited", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			es[3].Question += " again"
			return es
		}, 2},
		{"a document edited", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			es[9].Text += "\n\n## New section\n\nWith a new paragraph about parcels."
			return es
		}, 1},
		{"an entry deleted", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry { return slices.Delete(es, 20, 21) }, 0},
		{"an entry added", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			return append(es, domain.KnowledgeEntry{ID: "kb_new", Kind: domain.KindQA, Question: "Do you gift wrap?", Answer: "Yes, for free.", Lang: "en"})
		}, 1},
		{"entries moved", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			es[0], es[50] = es[50], es[0]
			return es
		}, 0},
		// en → untagged: its English-rules form serves again, the
		// Romanian one is new.
		{"a language removed", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			es[30].Lang = ""
			return es
		}, 1},
		{"a new language", func(es []domain.KnowledgeEntry) []domain.KnowledgeEntry {
			es[31].Lang = "ro"
			return es
		}, -1}, // 0 when entry 31 was Romanian already, else 1
	}
	for _, s := range steps {
		was := slices.Clone(entries)
		entries = s.change(slices.Clone(entries))
		want := s.analysed
		if want < 0 {
			want = 0
			if rulesOf(was[31].Lang) != "ro" {
				want = 1
			}
		}
		prev := b.last
		got := b.Build(entries)
		sameIndex(t, s.name, got, refBuild(entries))
		if same := got == prev; same != strings.HasPrefix(s.name, "nothing changed") {
			t.Errorf("%s: the last index again: %v", s.name, same)
		}
		if b.Analysed() != want {
			t.Errorf("%s: analysed %d entries, want %d", s.name, b.Analysed(), want)
		}
	}
}

// ruleSets are the rule sets e is analysed under.
func ruleSets(e domain.KnowledgeEntry) []string {
	if e.Lang != "" {
		return []string{rulesOf(e.Lang)}
	}
	return []string{"en", "ro"}
}

// Searches on a rebuilt index find what they find on a fresh one.
func TestRebuiltIndexSearchesAlike(t *testing.T) {
	t.Parallel()
	entries := retrievaltest.Entries(300, 12)
	b := NewBuilder()
	b.Build(entries)
	entries[5].Answer = "Completely new words: parcels wrapped in gift paper."
	entries = append(entries[:40], entries[41:]...)
	got, want := b.Build(entries), refBuild(entries)
	for i, q := range retrievaltest.Queries(entries, 300, 12) {
		g, w := got.Search(q.Text, q.Lang, 5), want.Search(q.Text, q.Lang, 5)
		if len(g) != len(w) {
			t.Fatalf("query %d %q: %d hits, want %d", i, q.Text, len(g), len(w))
		}
		for j := range g {
			if g[j].EntryIndex != w[j].EntryIndex || g[j].Passage != w[j].Passage || math.Abs(g[j].Score-w[j].Score) > 1e-9 {
				t.Fatalf("query %d %q: hit %d is %s, want %s", i, q.Text, j, fmt.Sprint(g[j]), fmt.Sprint(w[j]))
			}
		}
	}
}
