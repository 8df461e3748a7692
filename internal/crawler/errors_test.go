package crawler

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/outbound"
)

// A start URL that gives nothing is an error in words an owner reads.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	other := newTestSite(t)
	tests := []struct {
		name  string
		setup func(s *testSite)
		path  string
		want  string
		code  string
		args  []string // {base} is the site's URL
	}{
		{"404", func(s *testSite) {}, "/nope", "the site answered 404 for {base}/nope", CodeStatus, []string{"{base}/nope", "404"}},
		{"robots blocks all", func(s *testSite) {
			s.file("/robots.txt", "text/plain", []byte("User-agent: *\nDisallow: /\n"))
		}, "/", "robots.txt disallows the whole site for Parley", CodeRobotsSite, nil},
		{"robots blocks the start", func(s *testSite) {
			s.file("/robots.txt", "text/plain", []byte("User-agent: *\nDisallow: /private\n"))
		}, "/private/a", "robots.txt disallows {base}/private/a for Parley", CodeRobotsStart, []string{"{base}/private/a"}},
		{"robots 503", func(s *testSite) {
			s.mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
		}, "/", "the site answered 503 for {base}/robots.txt", CodeRobotsStatus, []string{"{base}/robots.txt", "503"}},
		{"off-site redirect", func(s *testSite) {
			s.mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL+"/", http.StatusFound) })
		}, "/", "{base}/ redirects to another site (" + other.URL + "/)", CodeOffSite, []string{"{base}/", other.URL + "/"}},
		{"not text", func(s *testSite) { s.file("/logo", "image/png", []byte("\x89PNG")) }, "/logo",
			"{base}/logo is not a web page, a PDF or a DOCX file (it is image/png)", CodeNotText, []string{"{base}/logo", "image/png"}},
		{"too large", func(s *testSite) { s.page("/big", strings.Repeat("x", 2<<20)) }, "/big",
			"{base}/big is larger than 1 MiB", CodeTooLarge, []string{"{base}/big", "1"}},
		{"slow", func(s *testSite) {
			s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		}, "/slow", "{base}/slow did not answer within 200ms", CodeTimeout, []string{"{base}/slow", "200ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newTestSite(t)
			tt.setup(s)
			// Only "slow" is about the timeout; the others get one a loaded
			// CI machine does not reach (2 MiB took over 200 ms there).
			timeout := 30 * time.Second
			if tt.code == CodeTimeout {
				timeout = 200 * time.Millisecond
			}
			cfg := Config{Client: privateOK(), MaxPages: 10, MaxBytes: 1 << 20, RequestTimeout: timeout}
			_, err := Crawl(context.Background(), cfg, s.URL+tt.path, func(Document) error { return nil })
			want := strings.ReplaceAll(tt.want, "{base}", s.URL)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want it to say %q", err, want)
			}
			var se *StartError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *StartError", err)
			}
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "{base}", s.URL)
			}
			if se.Code != tt.code || !slices.Equal(se.Args, args) {
				t.Errorf("code %q %q, want %q %q", se.Code, se.Args, tt.code, args)
			}
		})
	}
	if other.totalHits() != 0 {
		t.Error("the other site was visited")
	}
	for _, bad := range []string{"example.com", "ftp://example.com/", "https://"} {
		_, err := Crawl(context.Background(), Config{Client: privateOK(), MaxPages: 1}, bad, nil)
		var se *StartError
		if !errors.As(err, &se) || se.Code != CodeNotURL || !slices.Equal(se.Args, []string{bad}) {
			t.Errorf("%q: error %#v, want the code %q", bad, err, CodeNotURL)
		}
	}
}

// Without PARLEY_FETCH_ALLOW_PRIVATE, a start URL whose name resolves to
// a private address is refused at the dial, and the error says so.
func TestSSRFPrivateName(t *testing.T) {
	t.Parallel()
	s := newTestSite(t)
	s.page("/", htmlPage("Home", ""))
	start := strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/"
	guard := outbound.New(outbound.Options{})
	_, err := Crawl(context.Background(), Config{Client: guard.Client(), MaxPages: 10}, start, func(Document) error { return nil })
	if !outbound.IsRefusal(err) || !strings.HasPrefix(err.Error(), "refused: localhost resolves to ") {
		t.Errorf("error %v, want a refusal naming localhost", err)
	}
	var se *StartError
	if !errors.As(err, &se) || se.Code != CodeRefused || len(se.Args) != 2 ||
		!strings.HasPrefix(se.Args[0], "localhost (") || se.Args[1] != "loopback" {
		t.Errorf("error %#v, want the code %q with the name, its address and its class", err, CodeRefused)
	}
	if n := s.totalHits(); n != 0 {
		t.Errorf("the private site saw %d requests", n)
	}
}

// A site standing for a public one (the guard lets exactly its address
// through) redirects and links to 127.0.0.1 on another port: nothing
// reaches it, neither from a page nor from the start URL.
func TestSSRFRedirectToLoopback(t *testing.T) {
	t.Parallel()
	private := newTestSite(t)
	private.page("/", htmlPage("Admin", "secret"))
	public := newTestSite(t)
	public.page("/", htmlPage("Home", links("/go", private.URL+"/")))
	public.mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, private.URL+"/", http.StatusFound) })
	public.mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+private.URL[strings.LastIndex(private.URL, ":")+1:]+"/admin", http.StatusFound)
	})
	guard := outbound.New(outbound.Options{TestOnlyAllowAddrs: []netip.AddrPort{netip.MustParseAddrPort(public.Listener.Addr().String())}})
	cfg := Config{Client: guard.Client(), MaxPages: 10}

	docs, res, err := collect(t, cfg, public.URL+"/")
	if err != nil || len(docs) != 1 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	if res.Skipped != 1 {
		t.Errorf("Skipped %d, want 1 (the redirect)", res.Skipped)
	}
	_, err = Crawl(context.Background(), cfg, public.URL+"/start", func(Document) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "redirects to another site") {
		t.Errorf("start URL redirecting to loopback: %v", err)
	}
	if n := private.totalHits(); n != 0 {
		t.Errorf("the loopback server saw %d requests", n)
	}
}
