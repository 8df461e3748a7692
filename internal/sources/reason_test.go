package sources

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"parley/internal/crawler"
	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/store"
)

// TestRunSyncRecordsReasons syncs real local sites with the real crawler
// and extractor, one for each way a sync fails, and checks that the
// failure is kept as a code with its values beside the API's English.
func TestRunSyncRecordsReasons(t *testing.T) {
	t.Parallel()
	serve := func(mux *http.ServeMux) string {
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	elsewhere := http.NewServeMux()
	elsewhere.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Elsewhere</title><p>Another site.</p>")
	})
	other := serve(elsewhere)

	missing := http.NewServeMux()
	missing.HandleFunc("/", http.NotFound)
	notFound := serve(missing)

	closed := http.NewServeMux()
	closed.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nDisallow: /\n") })
	closed.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<title>Home</title><p>Hidden.</p>") })
	robots := serve(closed)

	moved := http.NewServeMux()
	moved.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other+"/", http.StatusFound) })
	offSite := serve(moved)

	blank := http.NewServeMux()
	blank.HandleFunc("/robots.txt", http.NotFound)
	blank.HandleFunc("/sitemap.xml", http.NotFound)
	blank.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><head></head><body></body></html>")
	})
	empty := serve(blank)

	private := http.NewServeMux()
	private.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<title>Admin</title><p>Secret.</p>") })
	local := strings.Replace(serve(private), "127.0.0.1", "localhost", 1) + "/"

	tests := []struct {
		name  string
		start string
		guard *outbound.Guard // nil: private addresses allowed
		error string          // the API's words, exactly
		want  []domain.Reason
	}{
		{"404", notFound + "/", nil, "the site could not be read: the site answered 404 for " + notFound + "/",
			[]domain.Reason{{Code: crawler.CodeStatus, Args: []string{notFound + "/", "404"}}}},
		{"robots disallow", robots + "/", nil, "the site could not be read: robots.txt disallows the whole site for Parley",
			[]domain.Reason{{Code: crawler.CodeRobotsSite}}},
		{"off-site redirect", offSite + "/", nil,
			"the site could not be read: " + offSite + "/ redirects to another site (" + other + "/), which is not followed: add that address instead",
			[]domain.Reason{{Code: crawler.CodeOffSite, Args: []string{offSite + "/", other + "/"}}}},
		{"no readable text", empty + "/", nil, "no page with text was found (3 fetched): 1 pages or files had no text that could be read",
			[]domain.Reason{{Code: ReasonEmptyFetched, Args: []string{"3"}}, {Code: ReasonUnreadable, Args: []string{"1"}}}},
		// The name was public when the source was added and resolves to
		// loopback now: the dial refuses it.
		{"refused private address", local, outbound.New(outbound.Options{}), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			eachStore(t, func(t *testing.T, st store.Store) {
				f := newFixture(t, st, Options{Guard: tt.guard})
				// Saved straight to the store: the service would refuse
				// the private address at once.
				src, err := st.CreateSource(t.Context(), store.NewSource{AccountID: f.account, AgentID: f.agent,
					Kind: domain.SourceWebsite, URL: tt.start, MaxPages: 10})
				noErr(t, err)
				noErr(t, f.svc.RunSync(t.Context(), src.ID))
				got := f.source(src.ID)
				if got.Status != domain.SourceFailed {
					t.Fatalf("status %q, error %q", got.Status, got.Error)
				}
				if tt.want == nil { // the refusal: its address depends on how localhost resolves
					if len(got.ErrorReasons) != 1 || got.ErrorReasons[0].Code != crawler.CodeRefused ||
						!reflect.DeepEqual(got.ErrorReasons[0].Args[1:], []string{"loopback"}) ||
						!strings.HasPrefix(got.ErrorReasons[0].Args[0], "localhost (") ||
						!strings.HasPrefix(got.Error, "the site could not be read: refused: localhost resolves to ") {
						t.Fatalf("error %q, reasons %#v", got.Error, got.ErrorReasons)
					}
					return
				}
				if got.Error != tt.error || !reflect.DeepEqual(got.ErrorReasons, tt.want) {
					t.Fatalf("error %q, reasons %#v\nwant %q, %#v", got.Error, got.ErrorReasons, tt.error, tt.want)
				}
			})
		})
	}
}
