package sources

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
	"unicode/utf8"

	"parley/internal/agent"
	"parley/internal/domain"
	"parley/internal/retrieval/retrievaltest"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
)

// Issue 16: the index rebuild after a sync of 2,000 pages, end to end: the
// pages written by ReplaceSourcePages into a real SQLite store, read back
// by Knowledge, indexed by the knowledge-base agent in the background after
// Invalidate (what RunSync does), while a visitor keeps asking questions.
//
//   - "all new": an agent with one typed entry and an index takes in
//     2,000 pages it has never seen (a source's first sync);
//   - "5% changed": a re-sync of the same 2,000 pages of which 100 changed.
//     Page IDs are stable per URL, so the builder analyses only those: the
//     benchmark fails unless it analysed exactly 100 entries.
//
// Two sizes of page: "short pages" of about 490 characters, the most for
// 2,000 pages to fit the default bound on sources (1,000,000 characters);
// and "site", item 1's site of 10,000 passages (about 2.4 million
// characters, about 1,200 a page), with the bound raised to 3,000,000
// (PARLEY_SOURCES_MAX_CHARS) so that all of it is indexed.
//
// Reported: write-ms (ReplaceSourcePages, one transaction), rebuild-ms
// (Invalidate to the new index, the store's reads included), analysed
// (entries analysed again), alloc-MB (allocated during the rebuild, the
// chats' few included) and the garbage collections it started
// (GCs/rebuild), heap-MB (the live heap the sync added once the old
// index is gone: the new index, and what the builder keeps for the next
// build, less the old ones; about 0 for a re-sync), and the chats answered during
// the rebuild (chats/rebuild) with their p50, p99 and slowest (max-chat-µs):
// they are answered from the previous index, so they take an answer's time,
// not the rebuild's. Run with -benchtime 3x.
func BenchmarkSync2000Pages(b *testing.B) {
	for _, shape := range []struct {
		name                     string
		sections, chars, maxChar int
	}{
		{"short pages", 2, 170, DefaultMaxChars},
		{"site", 5, 180, 3_000_000},
	} {
		pages := sitePages(retrievaltest.Site(2000, shape.sections, shape.chars, 1))
		total := 0
		for _, p := range pages {
			total += utf8.RuneCountInString(p.Text)
		}
		if total > shape.maxChar {
			b.Fatalf("%s: %d characters of pages, over the bound of %d", shape.name, total, shape.maxChar)
		}
		st := openBenchStore(b)
		b.Run(shape.name+"/all new", func(b *testing.B) {
			var m syncMetrics
			for b.Loop() {
				s := newSyncBench(b, st, shape.maxChar)
				s.sync(pages, len(pages), &m)
				s.kb.Stop()
			}
			m.report(b)
			b.ReportMetric(float64(total)/1e6, "Mchars")
		})
		b.Run(shape.name+"/5% changed", func(b *testing.B) {
			s := newSyncBench(b, st, shape.maxChar)
			b.Cleanup(s.kb.Stop)
			s.sync(pages, len(pages), nil)
			changed := slices.Clone(pages)
			var m syncMetrics
			n := 0
			for b.Loop() {
				n++
				for i := 0; i < len(changed); i += 20 {
					changed[i].Text = pages[i].Text + fmt.Sprintf(" Edited in sync number %d.", n)
				}
				s.sync(changed, len(changed)/20, &m)
			}
			m.report(b)
		})
	}
}

// sitePages are a generated site's entries as a crawl finds them.
func sitePages(site []domain.KnowledgeEntry) []domain.SourcePage {
	pages := make([]domain.SourcePage, len(site))
	for i, e := range site {
		pages[i] = domain.SourcePage{URL: e.URL, Title: e.Title, Text: e.Text, Lang: e.Lang}
	}
	return pages
}

func openBenchStore(b *testing.B) store.Store {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "p.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// syncBench is an agent with a website source, and a knowledge-base agent
// of its own that answers from it.
type syncBench struct {
	b       *testing.B
	st      store.Store
	kb      *agent.KB
	built   chan buildDone
	agent   domain.Agent
	source  domain.Source
	queries []retrievaltest.Query
}

type buildDone struct {
	analysed int
	err      error
}

type syncMetrics struct {
	write, rebuild       time.Duration
	analysed, syncs, gcs int
	alloc, live          float64 // bytes
	chats                []time.Duration
}

func newSyncBench(b *testing.B, st store.Store, maxChars int) *syncBench {
	ctx := context.Background()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("u", 8) + "@example.com", Name: "Owner", PasswordHash: "x", Limits: domain.DefaultLimits})
	if err != nil {
		b.Fatal(err)
	}
	ag, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot",
		Knowledge: []domain.KnowledgeEntry{{Question: "What are your hours?", Answer: "9 to 5."}}})
	if err != nil {
		b.Fatal(err)
	}
	src, err := st.CreateSource(ctx, store.NewSource{AccountID: acc.ID, AgentID: ag.ID, Kind: domain.SourceWebsite, URL: "https://example.com/", MaxPages: domain.MaxSourcePages})
	if err != nil {
		b.Fatal(err)
	}
	s := &syncBench{b: b, st: st, agent: ag, source: src, built: make(chan buildDone, 4)}
	s.kb = agent.NewKB(Knowledge{Store: st, MaxChars: maxChars}, agent.KBOptions{
		OnBuild: func(_ string, analysed int, _ time.Duration, err error) { s.built <- buildDone{analysed, err} },
	})
	s.ask(retrievaltest.Query{Text: "hours?", Lang: "en"}) // the first index: the typed entry
	if d := <-s.built; d.err != nil {
		b.Fatal(d.err)
	}
	return s
}

func (s *syncBench) ask(q retrievaltest.Query) agent.Reply {
	r, err := s.kb.Respond(context.Background(), agent.Request{Agent: s.agent, Text: q.Text, Lang: q.Lang})
	if err != nil {
		s.b.Fatal(err)
	}
	return r
}

// sync replaces the source's pages, starts the rebuild as RunSync does and
// asks questions until it is done; it fails unless the rebuild analysed
// want entries and pages answer afterwards. m, when not nil, gets the
// measurements.
func (s *syncBench) sync(pages []domain.SourcePage, want int, m *syncMetrics) {
	b, ctx := s.b, context.Background()
	if s.queries == nil {
		s.queries = retrievaltest.Queries(knowledgeOf(pages), 512, 1)
	}
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	if err := s.st.ReplaceSourcePages(ctx, s.source.ID, pages, store.SourceSync{At: time.Now()}); err != nil {
		b.Fatal(err)
	}
	written := time.Now()
	s.kb.Invalidate(s.agent.ID)
	var chats []time.Duration
	var done buildDone
answering:
	for i := 0; ; i++ {
		select {
		case done = <-s.built:
			break answering
		default:
			t := time.Now()
			s.ask(s.queries[i%len(s.queries)])
			chats = append(chats, time.Since(t))
		}
	}
	rebuilt := time.Now()
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	alloc, gcs := ms1.TotalAlloc-ms0.TotalAlloc, ms1.NumGC-ms0.NumGC
	runtime.GC()
	runtime.GC() // and what sync.Pools held over from the first
	runtime.ReadMemStats(&ms1)
	if done.err != nil {
		b.Fatal(done.err)
	}
	if done.analysed != want {
		b.Fatalf("the rebuild analysed %d entries, want %d", done.analysed, want)
	}
	// Every page is in the new index: a question made of its words
	// finds it. (Chats during the rebuild were answered from the one
	// before.)
	a, err := s.st.Agent(ctx, s.agent.AccountID, s.agent.ID)
	if err != nil {
		b.Fatal(err)
	}
	s.agent = a
	found := 0
	for _, q := range s.queries[:50] {
		ps, err := s.kb.Passages(ctx, s.agent, q.Text, q.Lang, 4)
		if err != nil {
			b.Fatal(err)
		}
		if len(ps) > 0 && ps[0].Source.URL != "" {
			found++
		}
	}
	if found < 40 {
		b.Fatalf("after the sync %d of 50 questions about the pages found a page", found)
	}
	if m != nil {
		m.syncs++
		m.write += written.Sub(start)
		m.rebuild += rebuilt.Sub(written)
		m.analysed += done.analysed
		m.alloc += float64(alloc)
		m.gcs += int(gcs)
		m.live += float64(int64(ms1.HeapAlloc) - int64(ms0.HeapAlloc))
		m.chats = append(m.chats, chats...)
	}
}

// knowledgeOf are pages as entries, for generating questions about them.
func knowledgeOf(pages []domain.SourcePage) []domain.KnowledgeEntry {
	out := make([]domain.KnowledgeEntry, len(pages))
	for i, p := range pages {
		out[i] = p.Entry()
	}
	return out
}

func (m *syncMetrics) report(b *testing.B) {
	n := float64(max(m.syncs, 1))
	b.ReportMetric(float64(m.write.Milliseconds())/n, "write-ms")
	b.ReportMetric(float64(m.rebuild.Milliseconds())/n, "rebuild-ms")
	b.ReportMetric(float64(m.analysed)/n, "analysed")
	b.ReportMetric(m.alloc/n/(1<<20), "alloc-MB")
	b.ReportMetric(float64(m.gcs)/n, "GCs/rebuild")
	b.ReportMetric(m.live/n/(1<<20), "heap-MB")
	b.ReportMetric(float64(len(m.chats))/n, "chats/rebuild")
	if len(m.chats) > 0 {
		retrievaltest.ReportPercentiles(b, m.chats)
		b.ReportMetric(float64(slices.Max(m.chats).Microseconds()), "max-chat-µs")
	}
}
