package sources

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/store"
)

func ptr[T any](v T) *T { return &v }

func TestCreate(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{Guard: outbound.New(outbound.Options{})}) // private addresses refused, as in production
		ctx := t.Context()
		src, err := f.svc.Create(ctx, f.account, f.agent, NewSource{Kind: "website", URL: " https://93.184.215.14/docs/ "})
		if err != nil {
			t.Fatal(err)
		}
		if src.URL != "https://93.184.215.14/docs/" || src.MaxPages != domain.DefaultMaxPages || src.SyncEvery != domain.DefaultSyncEvery ||
			src.Status != domain.SourceQueued || !strings.HasPrefix(src.ID, "src_") {
			t.Fatalf("created %+v", src)
		}
		if got := f.q.enqueued(); !slices.Equal(got, []string{src.ID}) {
			t.Fatalf("enqueued %v, want the new source's first sync", got)
		}
		off, err := f.svc.Create(ctx, f.account, f.agent, NewSource{Kind: "website", URL: "http://93.184.215.14/", MaxPages: ptr(2000), SyncEvery: ptr("0")})
		if err != nil || off.MaxPages != 2000 || off.SyncEvery != 0 || !off.NextSyncAt.IsZero() {
			t.Fatalf("max_pages 2000, never re-synced: %+v, %v", off, err)
		}
		six, err := f.svc.Create(ctx, f.account, f.agent, NewSource{Kind: "website", URL: "http://93.184.215.14/", SyncEvery: ptr("6h")})
		if err != nil || six.SyncEvery != 6*time.Hour || FormatEvery(six.SyncEvery) != "6h" {
			t.Fatalf("sync_every 6h: %+v, %v", six, err)
		}

		for _, tc := range []struct {
			in   NewSource
			want string
		}{
			{NewSource{Kind: "file", URL: "https://example.com/"}, `kind must be "website"`},
			{NewSource{Kind: "website"}, "url is required"},
			{NewSource{Kind: "website", URL: "ftp://example.com/"}, `url: scheme "ftp" is not allowed`},
			{NewSource{Kind: "website", URL: "example.com"}, "url: no scheme"},
			{NewSource{Kind: "website", URL: "http://127.0.0.1:8080/"}, "url: 127.0.0.1 is "},
			{NewSource{Kind: "website", URL: "http://10.1.2.3/"}, "private addresses"},
			{NewSource{Kind: "website", URL: "https://example.com/", MaxPages: ptr(0)}, "max_pages must be from 1 to 2000"},
			{NewSource{Kind: "website", URL: "https://example.com/", MaxPages: ptr(2001)}, "max_pages must be from 1 to 2000"},
			{NewSource{Kind: "website", URL: "https://example.com/", SyncEvery: ptr("30m")}, "sync_every must be at least 1h"},
			{NewSource{Kind: "website", URL: "https://example.com/", SyncEvery: ptr("-6h")}, "sync_every must be at least 1h"},
			{NewSource{Kind: "website", URL: "https://example.com/", SyncEvery: ptr("daily")}, `sync_every must be a duration such as "24h"`},
		} {
			_, err := f.svc.Create(ctx, f.account, f.agent, tc.in)
			var invalid *domain.InvalidError
			if !errors.As(err, &invalid) || !strings.Contains(invalid.Msg, tc.want) {
				t.Errorf("Create(%+v) = %v, want a 400 saying %q", tc.in, err, tc.want)
			}
		}
		if got := f.q.enqueued(); len(got) != 3 {
			t.Fatalf("refused sources were enqueued: %v", got)
		}
		// Another account's agent is not found, and nothing is created.
		other, _ := newAgent(t, st)
		if _, err := f.svc.Create(ctx, other, f.agent, NewSource{Kind: "website", URL: "https://93.184.215.14/"}); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another account's agent: %v", err)
		}
		if list, _ := f.svc.List(ctx, f.account, f.agent); len(list) != 3 {
			t.Fatalf("%d sources, want 3", len(list))
		}
	})
}

func TestSourcesPerAgent(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		for range MaxSourcesPerAgent {
			f.create("http://127.0.0.1/")
		}
		_, err := f.svc.Create(t.Context(), f.account, f.agent, NewSource{Kind: "website", URL: "http://127.0.0.1/"})
		var invalid *domain.InvalidError
		if !errors.As(err, &invalid) || !strings.Contains(invalid.Msg, "at most 20 sources") {
			t.Fatalf("source %d: %v", MaxSourcesPerAgent+1, err)
		}
	})
}

func TestOwnAccountOnly(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ctx := t.Context()
		src := f.create("http://127.0.0.1/")
		stranger, strangersAgent := newAgent(t, st)
		if _, err := f.svc.List(ctx, stranger, f.agent); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("List by another account: %v", err)
		}
		for name, err := range map[string]error{
			"Get":     second(f.svc.Get(ctx, stranger, f.agent, src.ID)),
			"SyncNow": second(f.svc.SyncNow(ctx, stranger, f.agent, src.ID)),
			"Pages":   second(f.svc.Pages(ctx, stranger, f.agent, src.ID)),
			"Delete":  f.svc.Delete(ctx, stranger, f.agent, src.ID),
			// The account's source under another agent's path is not found either.
			"Get under another agent": second(f.svc.Get(ctx, f.account, strangersAgent, src.ID)),
		} {
			if !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("%s: %v, want not found", name, err)
			}
		}
		if _, err := f.svc.Get(ctx, f.account, f.agent, src.ID); err != nil {
			t.Fatalf("the owner's Get after the stranger's attempts: %v", err)
		}
	})
}

func second[T any](_ T, err error) error { return err }

func TestSyncNowAndDelete(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ctx := t.Context()
		src := f.create("http://127.0.0.1/")
		noErr(t, st.ReplaceSourcePages(ctx, src.ID, []domain.SourcePage{{URL: "http://127.0.0.1/", Title: "Home", Text: "hello"}}, store.SourceSync{At: f.clock.now()}))
		f.clock.add(time.Hour)
		got, err := f.svc.SyncNow(ctx, f.account, f.agent, src.ID)
		noErr(t, err)
		if got.Status != domain.SourceQueued || !got.NextSyncAt.Equal(f.clock.now().Add(24*time.Hour)) {
			t.Fatalf("after SyncNow: %+v", got)
		}
		if q := f.q.enqueued(); !slices.Equal(q, []string{src.ID, src.ID}) {
			t.Fatalf("enqueued %v", q)
		}
		if pages, err := f.svc.Pages(ctx, f.account, f.agent, src.ID); err != nil || len(pages) != 1 || pages[0].Title != "Home" || pages[0].Chars != 5 {
			t.Fatalf("Pages = %+v, %v", pages, err)
		}

		// A queue that fails leaves the source failed with a word on it.
		f.q.fail = errors.New("queue down")
		got, err = f.svc.SyncNow(ctx, f.account, f.agent, src.ID)
		noErr(t, err)
		if got.Status != domain.SourceFailed || !strings.Contains(got.Error, "could not be started") || f.source(src.ID).Status != domain.SourceFailed {
			t.Fatalf("with the queue down: %+v", got)
		}
		notStarted := []domain.Reason{{Code: ReasonNotStarted}}
		if stored := f.source(src.ID); !reflect.DeepEqual(got.ErrorReasons, notStarted) || !reflect.DeepEqual(stored.ErrorReasons, notStarted) {
			t.Fatalf("with the queue down: reasons %#v, stored %#v", got.ErrorReasons, stored.ErrorReasons)
		}

		noErr(t, f.svc.Delete(ctx, f.account, f.agent, src.ID))
		if id := <-f.told; id != f.agent {
			t.Fatalf("invalidated %q", id)
		}
		if urls := f.pageURLs(); len(urls) != 0 {
			t.Fatalf("a deleted source's pages still answer: %v", urls)
		}
		if _, err := f.svc.Get(ctx, f.account, f.agent, src.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Get after Delete: %v", err)
		}
	})
}

func TestEnqueueDue(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, Options{})
		ctx := t.Context()
		// Sources are stamped with the store's clock; the schedule is
		// asked with times relative to their creation.
		hourly, err := f.svc.Create(ctx, f.account, f.agent, NewSource{Kind: "website", URL: "http://127.0.0.1/a", SyncEvery: ptr("1h")})
		noErr(t, err)
		never, err := f.svc.Create(ctx, f.account, f.agent, NewSource{Kind: "website", URL: "http://127.0.0.1/b", SyncEvery: ptr("0")})
		noErr(t, err)
		// The store is shared with the other tests, whose sources may be
		// due too: only this fixture's count.
		mine := func() int {
			n := 0
			for _, id := range f.q.enqueued() {
				if id == hourly.ID || id == never.ID {
					n++
				}
			}
			return n
		}
		at := hourly.CreatedAt
		created := len(f.q.enqueued()) // both first syncs, enqueued by Create
		before := mine()
		for _, step := range []struct {
			after time.Duration
			want  int
		}{{0, 0}, {59 * time.Minute, 0}, {time.Hour, 1}, {time.Hour + time.Minute, 0}, {2 * time.Hour, 1}, {10 * time.Hour, 1}} {
			n, err := f.svc.EnqueueDue(ctx, at.Add(step.after))
			noErr(t, err)
			if got := mine() - before; got != step.want || n < got {
				t.Fatalf("EnqueueDue at +%v enqueued %d of this test's sources (%d in all), want %d", step.after, got, n, step.want)
			}
			before = mine()
		}
		if slices.Contains(f.q.enqueued()[created:], never.ID) {
			t.Fatal("the on-demand source was enqueued by the schedule")
		}
	})
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
