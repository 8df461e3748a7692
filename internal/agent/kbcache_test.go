package agent

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/retrieval/retrievaltest"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
)

// gatedStore is a real SQLite store whose knowledge reads can be held after
// they have read: a test learns that a build has loaded the knowledge (on
// loads) and decides when the build may go on (hold, release).
type gatedStore struct {
	*sqlite.Store
	loads chan string // an agent's knowledge was read

	mu   sync.Mutex
	gate chan struct{} // nil: reads return at once
}

func newGatedStore(t testing.TB) *gatedStore {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &gatedStore{Store: st, loads: make(chan string, 100)}
}

// hold makes knowledge reads wait until the returned release is called.
func (g *gatedStore) hold() (release func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gate := make(chan struct{})
	g.gate = gate
	return func() {
		g.mu.Lock()
		g.gate = nil
		g.mu.Unlock()
		close(gate)
	}
}

func (g *gatedStore) Knowledge(ctx context.Context, agentID string) ([]domain.KnowledgeEntry, error) {
	entries, err := g.Store.Knowledge(ctx, agentID)
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		g.loads <- agentID
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return entries, err
}

// closedStore is a store that fails every read.
func closedStore(t *testing.T) *gatedStore {
	st := newGatedStore(t)
	st.Close()
	return st
}

// seedAgent creates an account with an agent that knows entries.
func seedAgent(t testing.TB, st *gatedStore, entries ...domain.KnowledgeEntry) domain.Agent {
	t.Helper()
	ctx := context.Background()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: secret.AgentID() + "@example.test", Name: "Owner", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Knowledge: entries})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type buildEvent struct {
	agentID  string
	analysed int
	err      error
}

// newTestKB starts a knowledge-base agent on src and reports each build on
// the returned channel.
func newTestKB(t *testing.T, src Source, o KBOptions) *KB {
	kb, _ := newWatchedKB(t, src, o)
	return kb
}

func newWatchedKB(t *testing.T, src Source, o KBOptions) (*KB, chan buildEvent) {
	t.Helper()
	builds := make(chan buildEvent, 100)
	o.OnBuild = func(agentID string, analysed int, _ time.Duration, err error) {
		builds <- buildEvent{agentID, analysed, err}
	}
	kb := NewKB(src, o)
	t.Cleanup(kb.Stop)
	return kb, builds
}

// ask answers text for a; a message that waits for a rebuild would hang
// while the test holds the knowledge reads: the deadline turns that into a
// failure instead.
func ask(t *testing.T, kb *KB, a domain.Agent, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := kb.Respond(ctx, Request{Agent: a, Text: text, Lang: "en"})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return r.Text
}

var hours = domain.KnowledgeEntry{Question: "What are your opening hours?", Answer: "We are open 9 to 17.", Lang: "en"}

// editAnswer changes the answer of a's only entry, as the API does, and
// returns the agent at its new version.
func editAnswer(t *testing.T, st *gatedStore, a domain.Agent, answer string) domain.Agent {
	t.Helper()
	ctx := context.Background()
	entries, err := st.Store.Knowledge(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	e.Answer = answer
	if _, err := st.UpdateKnowledge(ctx, a.AccountID, a.ID, e, domain.KnowledgeLimits{}); err != nil {
		t.Fatal(err)
	}
	if a, err = st.Agent(ctx, a.AccountID, a.ID); err != nil {
		t.Fatal(err)
	}
	return a
}

// A message for an agent that changed (here: a newer UpdatedAt, as another
// instance's edit shows) is answered at once from the index there is, while
// the new one is built; once it is built, messages get the new knowledge.
func TestKBAnswersFromTheOldIndexWhileRebuilding(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	a := seedAgent(t, st, hours)
	kb, builds := newWatchedKB(t, st, KBOptions{})
	if got := ask(t, kb, a, "opening hours?"); got != hours.Answer {
		t.Fatalf("first answer %q", got)
	}
	<-builds

	release := st.hold()
	a = editAnswer(t, st, a, "We are open 10 to 18.")
	if got := ask(t, kb, a, "opening hours?"); got != hours.Answer {
		t.Fatalf("during the rebuild: %q, want the old index's answer", got)
	}
	<-st.loads // the message started the rebuild, which now waits
	if got := ask(t, kb, a, "when are you open?"); got != hours.Answer {
		t.Fatalf("a second message during the rebuild: %q", got)
	}
	release()
	if b := <-builds; b.err != nil || b.analysed != 1 {
		t.Fatalf("rebuild: %+v, want one entry analysed", b)
	}
	if got := ask(t, kb, a, "opening hours?"); got != "We are open 10 to 18." {
		t.Fatalf("after the rebuild: %q", got)
	}
	kb.Stop()
	if len(builds) != 0 {
		t.Errorf("%d more builds, want one rebuild for the burst", len(builds))
	}
}

// An edit made through this instance (Invalidate) rebuilds at once, with
// no message needed, and re-analyses only what changed.
func TestKBRebuildAnalysesOnlyTheEditedEntry(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	entries := retrievaltest.Entries(60, 5)
	for i := range entries {
		entries[i].Lang = "en"
	}
	a := seedAgent(t, st, entries...)
	kb, builds := newWatchedKB(t, st, KBOptions{})
	ask(t, kb, a, "shipping")
	if b := <-builds; b.analysed != len(entries) {
		t.Fatalf("first build analysed %d entries, want %d", b.analysed, len(entries))
	}
	stored, _ := st.Store.Knowledge(context.Background(), a.ID)
	e := stored[7]
	e.Answer += " Gift wrapping is free."
	if _, err := st.UpdateKnowledge(context.Background(), a.AccountID, a.ID, e, domain.KnowledgeLimits{}); err != nil {
		t.Fatal(err)
	}
	kb.Invalidate(a.ID)
	if b := <-builds; b.err != nil || b.analysed != 1 {
		t.Fatalf("rebuild after one edit: %+v, want one entry analysed", b)
	}
	if err := st.DeleteKnowledge(context.Background(), a.AccountID, a.ID, stored[8].ID); err != nil {
		t.Fatal(err)
	}
	kb.Invalidate(a.ID)
	if b := <-builds; b.err != nil || b.analysed != 0 {
		t.Fatalf("rebuild after a deletion: %+v, want nothing analysed", b)
	}
	kb.Invalidate("ag_unknown") // an agent no message asked about: nothing to rebuild
	kb.Stop()
	if len(builds) != 0 {
		t.Errorf("%d builds more than asked for", len(builds))
	}
}

// Only an agent without an index makes messages wait, and a burst of them
// waits for one build.
func TestKBFirstMessagesWaitForOneBuild(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	a := seedAgent(t, st, hours)
	kb, builds := newWatchedKB(t, st, KBOptions{})
	release := st.hold()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if got := ask(t, kb, a, "opening hours"); got != hours.Answer {
				t.Errorf("got %q", got)
			}
		})
	}
	<-st.loads
	release()
	wg.Wait()
	kb.Stop()
	if len(builds) != 1 || len(st.loads) != 0 {
		t.Fatalf("%d builds and %d more loads for one burst, want 1 and 0", len(builds), len(st.loads))
	}
}

// A build does not end with the message that asked for it: that message
// may give up (its deadline), the next one finds the index built.
func TestKBBuildOutlivesTheMessageThatAskedForIt(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	a := seedAgent(t, st, hours)
	kb, builds := newWatchedKB(t, st, KBOptions{})
	release := st.hold()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error)
	go func() {
		_, err := kb.Respond(ctx, Request{Agent: a, Text: "opening hours", Lang: "en"})
		first <- err
	}()
	<-st.loads
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the message that gave up: %v, want its context's error", err)
	}
	release()
	if b := <-builds; b.err != nil {
		t.Fatal(b.err)
	}
	if got := ask(t, kb, a, "opening hours"); got != hours.Answer {
		t.Fatalf("got %q", got)
	}
	kb.Stop()
	if len(builds) != 0 || len(st.loads) != 0 {
		t.Fatal("the knowledge was loaded again")
	}
}

// An edit that lands while a build is under way (after it read the
// knowledge) is built right after it.
func TestKBEditDuringBuildBuildsAgain(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	a := seedAgent(t, st, hours)
	kb, builds := newWatchedKB(t, st, KBOptions{})
	release := st.hold()
	answered := make(chan string)
	go func() { answered <- ask(t, kb, a, "opening hours") }()
	<-st.loads // the first build read the knowledge as it was
	a = editAnswer(t, st, a, "We are open 10 to 18.")
	kb.Invalidate(a.ID)
	release()
	if got := <-answered; got != hours.Answer {
		t.Fatalf("first message: %q, want the answer the build read", got)
	}
	<-builds
	<-builds
	if got := ask(t, kb, a, "opening hours"); got != "We are open 10 to 18." {
		t.Fatalf("after the second build: %q", got)
	}
}

// Past the cache's bound the least recently used agent's index goes, and
// its next message builds it again.
func TestKBCacheBound(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	first := seedAgent(t, st, hours)
	second := seedAgent(t, st, domain.KnowledgeEntry{Question: "Do you ship abroad?", Answer: "Yes, to the EU.", Lang: "en"})
	kb, builds := newWatchedKB(t, st, KBOptions{CacheBytes: 1}) // room for the agent just built only
	ask(t, kb, first, "opening hours")
	ask(t, kb, second, "ship abroad")
	ask(t, kb, first, "opening hours")
	kb.Stop()
	var order []string
	for len(builds) > 0 {
		order = append(order, (<-builds).agentID)
	}
	if want := []string{first.ID, second.ID, first.ID}; !slices.Equal(order, want) {
		t.Fatalf("builds %v, want %v: the first agent built again after the second pushed it out", order, want)
	}
}

// One account's queued builds take turns with another's: an account that
// comes later waits for one build of the other, not for all of them.
func TestBuildQueueTakesAccountsInTurn(t *testing.T) {
	t.Parallel()
	var q buildQueue
	for _, ag := range []*kbAgent{{id: "a1", accountID: "A"}, {id: "a2", accountID: "A"}, {id: "a3", accountID: "A"}, {id: "a4", accountID: "A"}} {
		q.push(ag)
	}
	var order []string
	for ag := q.pop(); ag != nil; ag = q.pop() {
		order = append(order, ag.id)
		if ag.id == "a1" {
			q.push(&kbAgent{id: "b1", accountID: "B"})
			q.push(&kbAgent{id: "b2", accountID: "B"})
		}
	}
	if want := []string{"a1", "a2", "b1", "a3", "b2", "a4"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

// Stop cancels the build under way; the message waiting for it gets an
// error, and later messages without an index get one at once.
func TestKBStop(t *testing.T) {
	t.Parallel()
	st := newGatedStore(t)
	a := seedAgent(t, st, hours)
	kb := newTestKB(t, st, KBOptions{})
	st.hold()
	waiting := make(chan error)
	go func() {
		_, err := kb.Respond(context.Background(), Request{Agent: a, Text: "hours", Lang: "en"})
		waiting <- err
	}()
	<-st.loads
	kb.Stop()
	if err := <-waiting; err == nil {
		t.Fatal("a message waiting for a cancelled build got an answer")
	}
	if _, err := kb.Respond(context.Background(), Request{Agent: domain.Agent{ID: "ag_other"}, Text: "hours"}); !errors.Is(err, errKBStopped) {
		t.Fatalf("after Stop: %v, want errKBStopped", err)
	}
}

func TestKBLoadError(t *testing.T) {
	t.Parallel()
	kb := newTestKB(t, closedStore(t), KBOptions{})
	if _, err := kb.Respond(context.Background(), Request{Agent: domain.Agent{ID: "x"}, Text: "opening hours"}); err == nil { // small talk ("hi") needs no knowledge
		t.Fatal("answered from a knowledge base it could not read")
	}
}

// Failed builds are logged as warnings, slow ones at info; a build
// cancelled by Stop and a quick one are not logged.
func TestLogBuilds(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := LogBuilds(slog.New(slog.NewTextHandler(&buf, nil)))
	log("ag_quick", 3, time.Millisecond, nil)
	log("ag_stopped", 0, time.Millisecond, context.Canceled)
	log("ag_failed", 0, time.Millisecond, errors.New("database is closed"))
	log("ag_slow", 7, 2*time.Second, nil)
	out := buf.String()
	for _, want := range []string{"level=WARN msg=\"knowledge index build failed\" agent=ag_failed", "level=INFO msg=\"slow knowledge index build\" agent=ag_slow analysed=7"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ag_quick") || strings.Contains(out, "ag_stopped") {
		t.Errorf("logged what it should not:\n%s", out)
	}
}
