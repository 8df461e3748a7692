package sources

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
	"parley/internal/store"
)

// A re-sync re-analyses only the pages that changed, end to end: a local
// site crawled by RunSync, its pages stored, read back through Knowledge
// and indexed by the knowledge-base agent. Page IDs are derived from the
// source and the URL (store.PageID), so the index builder recognises the
// unchanged pages of a re-sync and carries their analysis over; this is
// what keeps a re-sync of 2,000 pages cheap (BenchmarkSync2000Pages).
func TestResyncReanalysesOnlyChangedPages(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		// A site per store: the stores' runs go side by side and each
		// edits its site.
		topics := []string{"shipping", "returns", "warranty", "payment", "assembly", "care"}
		var edited atomic.Value // the text of the warranty page
		edited.Store("The warranty covers every chair for two years.")
		mux := http.NewServeMux()
		page := func(title, body string) string {
			var nav strings.Builder
			for _, tp := range topics {
				fmt.Fprintf(&nav, `<a href="/%s">%s</a> `, tp, tp)
			}
			return `<!doctype html><html lang="en"><head><title>` + title + `</title></head><body><nav>` + nav.String() +
				`</nav><main><h1>` + title + `</h1><p>` + body + `</p></main></body></html>`
		}
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
		mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, page("Acme furniture", "We make oak tables and chairs in Chișinău."))
		})
		for _, tp := range topics {
			mux.HandleFunc("/"+tp, func(w http.ResponseWriter, r *http.Request) {
				body := "All about " + tp + " of our oak furniture, page " + tp + "."
				if tp == "warranty" {
					body = edited.Load().(string)
				}
				fmt.Fprint(w, page(strings.ToUpper(tp[:1])+tp[1:], body))
			})
		}
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)

		f := newFixture(t, st, Options{})
		ctx := t.Context()
		type build struct {
			analysed int
			err      error
		}
		built := make(chan build, 4)
		kb := agent.NewKB(Knowledge{Store: st, MaxChars: f.svc.MaxChars()}, agent.KBOptions{
			OnBuild: func(_ string, analysed int, _ time.Duration, err error) { built <- build{analysed, err} },
		})
		t.Cleanup(kb.Stop)
		ask := func(text string) agent.Reply {
			t.Helper()
			a, err := st.Agent(ctx, f.account, f.agent)
			noErr(t, err)
			r, err := kb.Respond(ctx, agent.Request{Agent: a, Text: text, Lang: "en"})
			noErr(t, err)
			return r
		}
		waitBuild := func(want int) {
			t.Helper()
			select {
			case b := <-built:
				if b.err != nil || b.analysed != want {
					t.Fatalf("the build analysed %d entries (error %v), want %d", b.analysed, b.err, want)
				}
			case <-time.After(time.Minute): // a hang, not a timing: builds take milliseconds
				t.Fatal("no build")
			}
		}

		src := f.create(srv.URL + "/")
		noErr(t, f.svc.RunSync(ctx, src.ID))
		if n := f.source(src.ID).Pages; n != len(topics)+1 {
			t.Fatalf("the first sync took %d pages, want %d", n, len(topics)+1)
		}
		before := f.entries()
		ask("how long is the warranty?") // the first index: every page, and the typed entry
		// (untagged, so analysed under English and Romanian rules: see
		// retrieval.Builder.Analysed)
		waitBuild(len(topics) + 1 + 2)

		edited.Store("The warranty covers every table for five years, legs included.")
		noErr(t, f.svc.RunSync(ctx, src.ID))
		// RunSync tells the agent's index (serve.go wires it to
		// KB.Invalidate), once a sync.
		for sync := 1; sync <= 2; sync++ {
			select {
			case id := <-f.told:
				if id != f.agent {
					t.Fatalf("sync %d told %s, want the agent %s", sync, id, f.agent)
				}
			default:
				t.Fatalf("sync %d did not tell the agent's index", sync)
			}
		}
		kb.Invalidate(f.agent)
		waitBuild(1)

		// The crawl may find the pages in another order; each keeps its ID.
		ids := func(entries []domain.KnowledgeEntry) map[string]string {
			m := make(map[string]string)
			for _, e := range entries {
				m[e.URL] = e.ID
			}
			return m
		}
		if b, a := ids(before), ids(f.entries()); !maps.Equal(a, b) {
			t.Fatalf("entries by URL before the re-sync %v, after %v: page IDs must stay with their URL", b, a)
		}
		r := ask("warranty for tables five years legs")
		if !strings.Contains(r.Text, "five years") || len(r.Sources) != 1 || r.Sources[0].URL != srv.URL+"/warranty" {
			t.Fatalf("after the re-sync: %q citing %+v, want the new warranty text from %s/warranty", r.Text, r.Sources, srv.URL)
		}
	})
}
