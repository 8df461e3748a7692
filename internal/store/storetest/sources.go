package storetest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

func newSource(t *testing.T, s store.Store, f fixture, url string, every time.Duration) domain.Source {
	t.Helper()
	src, err := s.CreateSource(t.Context(), store.NewSource{
		AccountID: f.account.ID, AgentID: f.agent.ID, Kind: domain.SourceWebsite, URL: url, MaxPages: 50, SyncEvery: every,
	})
	noErr(t, "CreateSource", err)
	return src
}

func agentVersion(t *testing.T, s store.Store, f fixture) time.Time {
	t.Helper()
	a, err := s.Agent(t.Context(), f.account.ID, f.agent.ID)
	noErr(t, "Agent", err)
	return a.UpdatedAt
}

func testSources(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	other := setup(t, s, many)

	before := time.Now()
	src := newSource(t, s, f, "https://example.com/", 6*time.Hour)
	after := time.Now()
	if !strings.HasPrefix(src.ID, "src_") || src.Status != domain.SourceQueued || src.Pages != 0 || src.MaxPages != 50 ||
		src.Kind != domain.SourceWebsite || src.AgentID != f.agent.ID || src.AccountID != f.account.ID || !src.SyncedAt.IsZero() {
		t.Fatalf("created %+v", src)
	}
	stampedNow(t, "CreatedAt", src.CreatedAt, before, after)
	sameTime(t, "NextSyncAt", src.NextSyncAt, src.CreatedAt.Add(6*time.Hour))
	second := newSource(t, s, f, "https://example.com/docs/", 0)
	if !second.NextSyncAt.IsZero() {
		t.Fatalf("a source that syncs only on demand is scheduled at %v", second.NextSyncAt)
	}

	// Another account's agent: not found, nothing created.
	_, err := s.CreateSource(ctx, store.NewSource{AccountID: other.account.ID, AgentID: f.agent.ID, Kind: domain.SourceWebsite, URL: "https://x.test/", MaxPages: 1})
	wantErr(t, "CreateSource for another account's agent", err, domain.ErrNotFound)

	got, err := s.Source(ctx, f.account.ID, src.ID)
	noErr(t, "Source", err)
	if !reflect.DeepEqual(got, src) {
		t.Fatalf("Source = %+v, want %+v", got, src)
	}
	if got, err := s.SourceByID(ctx, src.ID); err != nil || !reflect.DeepEqual(got, src) {
		t.Fatalf("SourceByID = %+v, %v", got, err)
	}
	_, err = s.Source(ctx, other.account.ID, src.ID)
	wantErr(t, "Source of another account", err, domain.ErrNotFound)
	_, err = s.SourceByID(ctx, "src_missing")
	wantErr(t, "SourceByID missing", err, domain.ErrNotFound)
	list, err := s.Sources(ctx, f.account.ID, f.agent.ID)
	noErr(t, "Sources", err)
	if len(list) != 2 || list[0].ID != src.ID || list[1].ID != second.ID {
		t.Fatalf("Sources = %+v, want the two oldest first", list)
	}
	if list, _ := s.Sources(ctx, other.account.ID, f.agent.ID); len(list) != 0 {
		t.Fatalf("another account lists %d sources of this agent", len(list))
	}
}

func testSourcePages(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	src := newSource(t, s, f, "https://example.com/", 24*time.Hour)
	other := newSource(t, s, f, "https://other.example/", 0)

	noErr(t, "StartSourceSync", s.StartSourceSync(ctx, src.ID))
	noErr(t, "SetSourceProgress", s.SetSourceProgress(ctx, src.ID, 2))
	if got, _ := s.SourceByID(ctx, src.ID); got.Status != domain.SourceSyncing || got.Pages != 2 {
		t.Fatalf("while syncing: %+v", got)
	}
	v0 := agentVersion(t, s, f)
	at := base.Add(time.Hour)
	pages := []domain.SourcePage{
		{URL: "https://example.com/", Title: "Home", Text: "# Home\n\nWelcome.", Lang: "en"},
		{URL: "https://example.com/ro", Title: "Acasă", Text: "Bună ziua, magazin în România.\x00", Lang: "ro"},
		{URL: "https://example.com/", Title: "Home again", Text: "a repeat of the first URL is dropped"},
	}
	noErr(t, "ReplaceSourcePages", s.ReplaceSourcePages(ctx, src.ID, pages, store.SourceSync{At: at, Note: "1 document could not be read"}))
	got, err := s.SourceByID(ctx, src.ID)
	noErr(t, "SourceByID", err)
	if got.Status != domain.SourceReady || got.Pages != 2 || got.Error != "" || got.Note != "1 document could not be read" {
		t.Fatalf("after the sync: %+v", got)
	}
	wantChars := len("# Home\n\nWelcome.") + len([]rune("Bună ziua, magazin în România."))
	if got.Chars != wantChars {
		t.Fatalf("Chars = %d, want %d (code points, NUL dropped)", got.Chars, wantChars)
	}
	sameTime(t, "SyncedAt", got.SyncedAt, at)
	sameTime(t, "NextSyncAt", got.NextSyncAt, at.Add(24*time.Hour))
	v1 := agentVersion(t, s, f)
	if !v1.After(v0) {
		t.Fatalf("ReplaceSourcePages did not bump the agent's version (%v → %v)", v0, v1)
	}

	all, err := s.AgentSourcePages(ctx, f.agent.ID)
	noErr(t, "AgentSourcePages", err)
	if len(all) != 2 || all[0].URL != "https://example.com/" || all[0].Title != "Home" || all[1].Text != "Bună ziua, magazin în România." ||
		all[1].Lang != "ro" || all[0].SourceID != src.ID || all[0].AgentID != f.agent.ID {
		t.Fatalf("AgentSourcePages = %+v", all)
	}
	if all[0].ID != store.PageID(src.ID, all[0].URL) || all[0].ID == all[1].ID {
		t.Fatalf("page ids %q, %q: want store.PageID's", all[0].ID, all[1].ID)
	}
	list, err := s.SourcePages(ctx, src.ID)
	noErr(t, "SourcePages", err)
	if len(list) != 2 || list[1] != (store.SourcePageInfo{ID: all[1].ID, URL: "https://example.com/ro", Title: "Acasă", Chars: 30}) {
		t.Fatalf("SourcePages = %+v", list)
	}

	// The other source's pages come after this one's (older first); a
	// re-sync replaces only its own source's pages, and a page kept keeps
	// its id.
	noErr(t, "ReplaceSourcePages other", s.ReplaceSourcePages(ctx, other.ID, []domain.SourcePage{{URL: "https://other.example/", Title: "Other", Text: "other"}}, store.SourceSync{At: at}))
	noErr(t, "re-sync", s.ReplaceSourcePages(ctx, src.ID, []domain.SourcePage{
		{URL: "https://example.com/new", Title: "New", Text: "new page"},
		{URL: "https://example.com/", Title: "Home", Text: "# Home\n\nWelcome back."},
	}, store.SourceSync{At: at.Add(time.Hour)}))
	all, _ = s.AgentSourcePages(ctx, f.agent.ID)
	if len(all) != 3 || all[0].URL != "https://example.com/new" || all[1].Text != "# Home\n\nWelcome back." || all[2].URL != "https://other.example/" {
		t.Fatalf("after the re-sync: %+v", all)
	}
	if all[1].ID != list[0].ID {
		t.Fatalf("the home page's id changed across syncs: %q → %q", list[0].ID, all[1].ID)
	}
	if got, _ := s.SourceByID(ctx, src.ID); got.Note != "" || got.Pages != 2 {
		t.Fatalf("a re-sync that left nothing out still has the old note, or the wrong count: %+v", got)
	}

	// A failed sync keeps the pages that answer and says why.
	noErr(t, "StartSourceSync", s.StartSourceSync(ctx, src.ID))
	noErr(t, "FailSourceSync", s.FailSourceSync(ctx, src.ID, store.SourceFailure{At: at.Add(2 * time.Hour), Error: "the site answered 503"}))
	got, _ = s.SourceByID(ctx, src.ID)
	if got.Status != domain.SourceFailed || got.Error != "the site answered 503" || got.Pages != 2 {
		t.Fatalf("after a failed sync: %+v", got)
	}
	sameTime(t, "NextSyncAt after a failure", got.NextSyncAt, at.Add(26*time.Hour))
	if all, _ := s.AgentSourcePages(ctx, f.agent.ID); len(all) != 3 {
		t.Fatalf("a failed sync took pages away: %d left", len(all))
	}
	noErr(t, "StartSourceSync", s.StartSourceSync(ctx, src.ID))
	if got, _ := s.SourceByID(ctx, src.ID); got.Status != domain.SourceSyncing || got.Error != "" || got.Pages != 0 {
		t.Fatalf("a new sync: %+v", got)
	}
}

func testDeleteSource(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	stranger := setup(t, s, many)
	src := newSource(t, s, f, "https://example.com/", time.Hour)
	page := []domain.SourcePage{{URL: "https://example.com/", Title: "Home", Text: "hello"}}
	noErr(t, "ReplaceSourcePages", s.ReplaceSourcePages(ctx, src.ID, page, store.SourceSync{At: base}))

	wantErr(t, "DeleteSource by another account", s.DeleteSource(ctx, stranger.account.ID, src.ID), domain.ErrNotFound)
	v0 := agentVersion(t, s, f)
	noErr(t, "DeleteSource", s.DeleteSource(ctx, f.account.ID, src.ID))
	if !agentVersion(t, s, f).After(v0) {
		t.Fatal("DeleteSource did not bump the agent's version")
	}
	if all, _ := s.AgentSourcePages(ctx, f.agent.ID); len(all) != 0 {
		t.Fatalf("a deleted source's pages still answer: %+v", all)
	}
	_, err := s.Source(ctx, f.account.ID, src.ID)
	wantErr(t, "Source after delete", err, domain.ErrNotFound)
	wantErr(t, "DeleteSource again", s.DeleteSource(ctx, f.account.ID, src.ID), domain.ErrNotFound)

	// A sync that was running when the source was deleted brings nothing
	// back.
	wantErr(t, "SetSourceProgress after delete", s.SetSourceProgress(ctx, src.ID, 3), domain.ErrNotFound)
	wantErr(t, "ReplaceSourcePages after delete", s.ReplaceSourcePages(ctx, src.ID, page, store.SourceSync{At: base}), domain.ErrNotFound)
	wantErr(t, "FailSourceSync after delete", s.FailSourceSync(ctx, src.ID, store.SourceFailure{At: base, Error: "x"}), domain.ErrNotFound)
	_, err = s.QueueSource(ctx, src.ID, base)
	wantErr(t, "QueueSource after delete", err, domain.ErrNotFound)
	if all, _ := s.AgentSourcePages(ctx, f.agent.ID); len(all) != 0 {
		t.Fatalf("a sync after the delete brought pages back: %+v", all)
	}
	if list, _ := s.SourcePages(ctx, src.ID); len(list) != 0 {
		t.Fatalf("a deleted source lists %d pages", len(list))
	}
}

func testDueSources(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	hourly := newSource(t, s, f, "https://a.example/", time.Hour)
	daily := newSource(t, s, f, "https://b.example/", 24*time.Hour)
	newSource(t, s, f, "https://c.example/", 0) // on demand only: never due

	now := hourly.CreatedAt
	due := func(at time.Time) []string {
		t.Helper()
		list, err := s.DueSources(ctx, at, 10)
		noErr(t, "DueSources", err)
		ids := []string{}
		for _, src := range list {
			ids = append(ids, src.ID)
		}
		return ids
	}
	if got := due(now); len(got) != 0 {
		t.Fatalf("due at creation: %v", got)
	}
	if got := due(now.Add(25 * time.Hour)); len(got) != 2 || got[0] != hourly.ID || got[1] != daily.ID {
		t.Fatalf("due a day later: %v, want hourly then daily", got)
	}
	if got, _ := s.DueSources(ctx, now.Add(25*time.Hour), 1); len(got) != 1 || got[0].ID != hourly.ID {
		t.Fatalf("limit 1: %+v", got)
	}

	// Queued at t, a source is due again a period after t; one syncing
	// stays syncing.
	q, err := s.QueueSource(ctx, hourly.ID, now.Add(2*time.Hour))
	noErr(t, "QueueSource", err)
	if q.Status != domain.SourceQueued {
		t.Fatalf("queued: %+v", q)
	}
	sameTime(t, "NextSyncAt after queueing", q.NextSyncAt, now.Add(3*time.Hour))
	if got := due(now.Add(2 * time.Hour)); len(got) != 0 {
		t.Fatalf("due right after being queued: %v", got)
	}
	if got := due(now.Add(3 * time.Hour)); len(got) != 1 || got[0] != hourly.ID {
		t.Fatalf("due a period after being queued: %v", got)
	}
	noErr(t, "StartSourceSync", s.StartSourceSync(ctx, daily.ID))
	q, err = s.QueueSource(ctx, daily.ID, now)
	noErr(t, "QueueSource while syncing", err)
	if q.Status != domain.SourceSyncing {
		t.Fatalf("queueing a source that syncs made it %q", q.Status)
	}
	if got, _ := s.SourceByID(ctx, daily.ID); got.Status != domain.SourceSyncing {
		t.Fatalf("stored: %q", got.Status)
	}
}

// A sync's outcome is kept as codes with their values as well as words,
// and each ending replaces what the one before said.
func testSourceReasons(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	src := newSource(t, s, f, "https://example.com/", time.Hour)
	if src.ErrorReasons != nil || src.NoteReasons != nil {
		t.Fatalf("a new source has reasons: %+v", src)
	}
	// Values come from the site: a NUL, broken UTF-8 and Cyrillic are
	// kept as JSON can keep them.
	failed := []domain.Reason{
		{Code: "status", Args: []string{"https://example.com/магазин\x00", "404"}},
		{Code: "robots_site"},
	}
	noErr(t, "FailSourceSync", s.FailSourceSync(ctx, src.ID, store.SourceFailure{At: base, Error: "the site answered 404", Reasons: failed}))
	got, err := s.Source(ctx, f.account.ID, src.ID)
	noErr(t, "Source", err)
	if got.Error != "the site answered 404" || !reflect.DeepEqual(got.ErrorReasons, failed) || got.NoteReasons != nil {
		t.Fatalf("after a failed sync: %q %#v %#v", got.Error, got.ErrorReasons, got.NoteReasons)
	}
	broken := []domain.Reason{{Code: "not_text", Args: []string{"https://example.com/x", "text/\xff"}}}
	noErr(t, "FailSourceSync", s.FailSourceSync(ctx, src.ID, store.SourceFailure{At: base, Error: "not text", Reasons: broken}))
	got, _ = s.SourceByID(ctx, src.ID)
	if want := []domain.Reason{{Code: "not_text", Args: []string{"https://example.com/x", "text/\uFFFD"}}}; !reflect.DeepEqual(got.ErrorReasons, want) {
		t.Fatalf("broken UTF-8 in a value: %#v, want %#v", got.ErrorReasons, want)
	}

	// A new sync clears the error and its reasons; its note stays until
	// a sync ends ready.
	noErr(t, "StartSourceSync", s.StartSourceSync(ctx, src.ID))
	if got, _ := s.SourceByID(ctx, src.ID); got.Error != "" || got.ErrorReasons != nil {
		t.Fatalf("a new sync kept the error's reasons: %#v", got.ErrorReasons)
	}
	note := []domain.Reason{{Code: "bound", Args: []string{"3", "1000000"}}, {Code: "crawl_time"}}
	page := []domain.SourcePage{{URL: "https://example.com/", Title: "Home", Text: "hello"}}
	noErr(t, "ReplaceSourcePages", s.ReplaceSourcePages(ctx, src.ID, page, store.SourceSync{At: base, Note: "3 pages were left out", NoteReasons: note}))
	got, _ = s.SourceByID(ctx, src.ID)
	if got.Note != "3 pages were left out" || !reflect.DeepEqual(got.NoteReasons, note) || got.ErrorReasons != nil {
		t.Fatalf("after a ready sync: %q %#v %#v", got.Note, got.NoteReasons, got.ErrorReasons)
	}
	list, err := s.Sources(ctx, f.account.ID, f.agent.ID)
	noErr(t, "Sources", err)
	if len(list) != 1 || !reflect.DeepEqual(list[0].NoteReasons, note) {
		t.Fatalf("Sources: %+v", list)
	}
	noErr(t, "StartSourceSync", s.StartSourceSync(ctx, src.ID))
	noErr(t, "FailSourceSync", s.FailSourceSync(ctx, src.ID, store.SourceFailure{At: base, Error: "could not be read"}))
	got, _ = s.SourceByID(ctx, src.ID)
	if got.ErrorReasons != nil || !reflect.DeepEqual(got.NoteReasons, note) {
		t.Fatalf("a failure without reasons: %#v, note %#v", got.ErrorReasons, got.NoteReasons)
	}
	noErr(t, "ReplaceSourcePages", s.ReplaceSourcePages(ctx, src.ID, page, store.SourceSync{At: base}))
	if got, _ := s.SourceByID(ctx, src.ID); got.Note != "" || got.NoteReasons != nil {
		t.Fatalf("a sync that left nothing out kept the old note's reasons: %#v", got.NoteReasons)
	}
}
