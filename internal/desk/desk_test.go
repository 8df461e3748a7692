package desk_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/audit"
	"parley/internal/chat"
	"parley/internal/desk"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/store/sqlite/sqlitetest"
)

// The desk's rules on a real SQLite store, with the real chat service
// calling its hooks and a clock the test moves.

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time           { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration)      { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }
func (c *clock) since(t time.Time) string { return c.Now().Sub(t).String() }

// answer always answers.
type answer struct{}

func (answer) Respond(context.Context, agent.Request) (agent.Reply, error) {
	return agent.Reply{Text: "We open at 9."}, nil
}

type fixture struct {
	t       *testing.T
	ctx     context.Context
	st      *sqlite.Store
	clock   *clock
	desk    *desk.Service
	chat    *chat.Service
	audit   *audit.Service
	account domain.Account
	key     string
}

var start = time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, ctx: ctx, st: st, clock: &clock{now: start}}
	hub := notify.NewHub()
	log := slog.New(slog.DiscardHandler)
	f.audit = audit.New(audit.Options{Store: st, Now: f.clock.Now, Logger: log})
	f.desk = desk.New(desk.Options{Store: st, Notifier: hub, Audit: f.audit, Now: f.clock.Now, Logger: log})
	f.chat = chat.New(chat.Options{Store: st, Responder: answer{}, Notifier: hub, Now: f.clock.Now, Logger: log, Desk: f.desk})
	t.Cleanup(f.chat.Stop)
	f.account, err = st.CreateAccount(ctx, store.NewAccount{Email: secret.ID("u", 6) + "@example.com", Name: "Owner", PasswordHash: "x",
		Limits: domain.Limits{MonthlyConversations: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	f.key = secret.WidgetKey()
	if _, err := st.CreateAgent(ctx, store.NewAgent{AccountID: f.account.ID, ChatbotName: "Helper", Config: json.RawMessage(`{}`), Key: f.key}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) operator(name string) domain.User {
	f.t.Helper()
	u, err := f.st.CreateUser(f.ctx, store.NewUser{AccountID: f.account.ID, Email: secret.ID("op", 6) + "@example.com",
		Name: name, PasswordHash: "x", Role: domain.UserOperator})
	if err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) init() string {
	f.t.Helper()
	res, err := f.chat.Init(f.ctx, chat.InitInput{Key: f.key})
	if err != nil {
		f.t.Fatal(err)
	}
	return res.ConversationID
}

func (f *fixture) say(conv, text string) {
	f.t.Helper()
	if _, err := f.chat.Chat(f.ctx, chat.ChatInput{Key: f.key, ConversationID: conv, Text: text}); err != nil {
		f.t.Fatalf("Chat: %v", err)
	}
}

func (f *fixture) conv(id string) domain.Conversation {
	f.t.Helper()
	c, err := f.st.Conversation(f.ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// actions are the audit log's actions, oldest first.
func (f *fixture) actions() []string {
	f.t.Helper()
	page, err := f.audit.List(f.ctx, f.account.ID, audit.Filter{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for i := len(page.Entries) - 1; i >= 0; i-- {
		out = append(out, page.Entries[i].Action+" "+page.Entries[i].ActorType)
	}
	return out
}

func TestResolveAndReopenOnVisitorMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.init()
	f.say(id, "hello")
	changed, err := f.desk.Resolve(f.ctx, f.account.ID, id)
	if err != nil || !changed {
		t.Fatalf("Resolve = %v, %v", changed, err)
	}
	if changed, _ := f.desk.Resolve(f.ctx, f.account.ID, id); changed {
		t.Fatal("resolving twice changed it")
	}
	if c := f.conv(id); c.Status != domain.StatusResolved {
		t.Fatalf("status %q, want resolved", c.Status)
	}
	// Another account cannot resolve it.
	other := newFixture(t)
	if _, err := f.desk.Reopen(f.ctx, other.account.ID, id); err != domain.ErrNotFound {
		t.Fatalf("another account's Reopen: %v", err)
	}
	f.say(id, "one more question")
	if c := f.conv(id); c.Status != domain.StatusOpen {
		t.Fatalf("after a visitor message: status %q, want open", c.Status)
	}
	got := f.actions()
	want := []string{"conversation.resolve system", "conversation.reopen system"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("audit %v, want %v", got, want)
	}
	// An operator's reopen, with a user actor.
	if _, err := f.desk.Resolve(f.ctx, f.account.ID, id); err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(f.ctx, audit.Actor{Type: audit.ActorUser, ID: "u1", Name: "ana@example.com"})
	if changed, err := f.desk.Reopen(ctx, f.account.ID, id); err != nil || !changed {
		t.Fatalf("Reopen = %v, %v", changed, err)
	}
	if got := f.actions(); got[len(got)-1] != "conversation.reopen user" {
		t.Fatalf("audit %v", got)
	}
}

func TestAssignByOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ana := f.operator("Ana")
	id := f.init()
	c, err := f.desk.Assign(f.ctx, f.account.ID, id, ana.ID)
	if err != nil || c.AssigneeID != ana.ID || c.Mode != domain.ModeHuman || c.AssigneeName != "Ana" {
		t.Fatalf("Assign = %+v, %v", c, err)
	}
	other := newFixture(t)
	stranger := other.operator("Eve")
	if _, err := f.desk.Assign(f.ctx, f.account.ID, id, stranger.ID); !isInvalid(err) {
		t.Fatalf("assigning to another account's user: %v, want invalid", err)
	}
	if _, err := other.desk.Assign(f.ctx, other.account.ID, id, stranger.ID); err != domain.ErrNotFound {
		t.Fatalf("assigning another account's conversation: %v", err)
	}
	if got := f.actions(); len(got) != 1 || got[0] != "conversation.assign system" {
		t.Fatalf("audit %v", got)
	}
}

func TestPresenceExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ana, bo := f.operator("Ana"), f.operator("Bo")
	online := func(want int) {
		t.Helper()
		n, err := f.desk.OperatorsOnline(f.ctx, f.account.ID)
		if err != nil || n != want {
			t.Fatalf("OperatorsOnline at +%s = %d, %v; want %d", f.clock.since(start), n, err, want)
		}
	}
	online(0)
	if err := f.desk.Heartbeat(f.ctx, f.account.ID, ana.ID); err != nil {
		t.Fatal(err)
	}
	online(1)
	f.clock.Add(30 * time.Second)
	if err := f.desk.Heartbeat(f.ctx, f.account.ID, bo.ID); err != nil {
		t.Fatal(err)
	}
	online(2)
	f.clock.Add(store.PresenceWindow - 30*time.Second)
	online(2) // Ana's last heartbeat exactly a window ago
	f.clock.Add(time.Millisecond)
	online(1) // Ana's tab is gone
	if err := f.desk.SetAway(f.ctx, f.account.ID, bo.ID, true); err != nil {
		t.Fatal(err)
	}
	online(0) // Bo's tab is open but he is away
	if err := f.desk.Heartbeat(f.ctx, f.account.ID, bo.ID); err != nil {
		t.Fatal(err)
	}
	online(0) // heartbeats do not end away
	if err := f.desk.SetAway(f.ctx, f.account.ID, bo.ID, false); err != nil {
		t.Fatal(err)
	}
	online(1)
}

// waiting starts a conversation whose visitor asks for a person.
func (f *fixture) waiting() string {
	f.t.Helper()
	id := f.init()
	f.say(id, "talk to a human")
	return id
}

func TestAutoAssignRoundRobinAndCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ana, bo := f.operator("Ana"), f.operator("Bo")
	if err := f.desk.SetSettings(f.ctx, f.account.ID, store.DeskSettings{AutoAssign: true, Cap: 2}); err != nil {
		t.Fatal(err)
	}
	// Nobody online: the conversation waits.
	first := f.waiting()
	if c := f.conv(first); !c.Waiting || c.AssigneeID != "" {
		t.Fatalf("with nobody online: %+v", c)
	}
	// Ana comes online and gets what waits.
	if err := f.desk.Heartbeat(f.ctx, f.account.ID, ana.ID); err != nil {
		t.Fatal(err)
	}
	if c := f.conv(first); c.Waiting || c.AssigneeID != ana.ID || c.Mode != domain.ModeHuman {
		t.Fatalf("after Ana came online: %+v", c)
	}
	f.clock.Add(time.Second)
	if err := f.desk.Heartbeat(f.ctx, f.account.ID, bo.ID); err != nil {
		t.Fatal(err)
	}
	// Round-robin: Bo (never assigned) next, then Ana, then Bo...
	got := map[string]int{}
	var order []string
	for range 3 {
		f.clock.Add(time.Second)
		c := f.conv(f.waiting())
		got[c.AssigneeID]++
		order = append(order, c.AssigneeName)
	}
	if want := []string{"Bo", "Ana", "Bo"}; order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Fatalf("order %v, want %v", order, want)
	}
	// Both at the cap of 2: the next one waits.
	over := f.waiting()
	if c := f.conv(over); !c.Waiting || c.AssigneeID != "" {
		t.Fatalf("past every cap: %+v", c)
	}
	// Resolving one of Ana's frees a place; her next heartbeat is no
	// coming online, so the conversation waits for the next event: Bo
	// going away and back.
	if _, err := f.desk.Resolve(f.ctx, f.account.ID, first); err != nil {
		t.Fatal(err)
	}
	if err := f.desk.SetAway(f.ctx, f.account.ID, bo.ID, false); err != nil {
		t.Fatal(err)
	}
	if c := f.conv(over); c.AssigneeID != ana.ID {
		t.Fatalf("after a place freed: assignee %q, want Ana", c.AssigneeID)
	}
	// An operator whose tab closed gets nothing.
	f.clock.Add(store.PresenceWindow + time.Second)
	if _, err := f.desk.Resolve(f.ctx, f.account.ID, over); err != nil {
		t.Fatal(err)
	}
	late := f.waiting()
	if c := f.conv(late); c.AssigneeID != "" {
		t.Fatalf("assigned to an operator offline: %+v", c)
	}
	n := 0
	for _, a := range f.actions() {
		if a == "conversation.assign system" {
			n++
		}
	}
	if n != 5 {
		t.Fatalf("%d assignments in the audit log, want 5", n)
	}
}

func TestAutoAssignOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ana := f.operator("Ana")
	if err := f.desk.Heartbeat(f.ctx, f.account.ID, ana.ID); err != nil {
		t.Fatal(err)
	}
	id := f.waiting()
	if c := f.conv(id); !c.Waiting || c.AssigneeID != "" {
		t.Fatalf("auto-assign off, yet: %+v", c)
	}
	// Turning it on assigns what waits.
	if err := f.desk.SetSettings(f.ctx, f.account.ID, store.DeskSettings{AutoAssign: true}); err != nil {
		t.Fatal(err)
	}
	if c := f.conv(id); c.AssigneeID != ana.ID {
		t.Fatalf("after turning it on: %+v", c)
	}
}

// Several desks (instances) over one store assign the same waiting
// conversations at once: each goes to one operator, none past the cap.
func TestAutoAssignConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ops := []domain.User{f.operator("Ana"), f.operator("Bo"), f.operator("Cy")}
	for _, o := range ops {
		if err := f.desk.Heartbeat(f.ctx, f.account.ID, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for range 9 {
		ids = append(ids, f.waiting())
	}
	if err := f.st.SetDeskSettings(f.ctx, f.account.ID, store.DeskSettings{AutoAssign: true, Cap: 2}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		d := desk.New(desk.Options{Store: f.st, Audit: f.audit, Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.AssignWaiting(f.ctx, f.account.ID)
		}()
	}
	wg.Wait()
	per := map[string]int{}
	for _, id := range ids {
		per[f.conv(id).AssigneeID]++
	}
	for _, o := range ops {
		if per[o.ID] != 2 {
			t.Fatalf("assignments %v: %s has %d, want 2", per, o.Name, per[o.ID])
		}
	}
	if per[""] != 3 {
		t.Fatalf("assignments %v: %d left waiting, want 3", per, per[""])
	}
	n := 0
	for _, a := range f.actions() {
		if a == "conversation.assign system" {
			n++
		}
	}
	if n != 6 {
		t.Fatalf("%d assignments logged, want 6 (one per conversation)", n)
	}
}

func isInvalid(err error) bool {
	var inv *domain.InvalidError
	return errors.As(err, &inv)
}
