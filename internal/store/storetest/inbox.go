package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

func conversation(t *testing.T, s store.Store, id string) domain.Conversation {
	t.Helper()
	c, err := s.Conversation(t.Context(), id)
	noErr(t, "Conversation", err)
	return c
}

func testTakeOver(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	before := time.Now()
	_, err := s.SetWaiting(ctx, c.ID, true)
	noErr(t, "SetWaiting", err)
	after := time.Now()

	got, won, err := s.TakeOver(ctx, c.ID, "usr_ana", "Ana")
	noErr(t, "TakeOver", err)
	// Handed off when it began to wait (issue 20), not moved by the
	// takeover.
	stampedNow(t, "HandedAt", got.HandedAt, before, after)
	want := c
	want.Mode, want.Waiting, want.AssigneeID, want.AssigneeName = domain.ModeHuman, false, "usr_ana", "Ana"
	want.HandedAt = got.HandedAt
	if !won || got != want {
		t.Errorf("TakeOver = %+v, %v; want %+v, true", got, won, want)
	}
	if stored := conversation(t, s, c.ID); stored != want {
		t.Errorf("Conversation after TakeOver = %+v, want %+v", stored, want)
	}

	// Another operator comes second and learns who holds it.
	got, won, err = s.TakeOver(ctx, c.ID, "usr_bo", "Bo")
	noErr(t, "TakeOver second", err)
	if won || got != want {
		t.Errorf("second TakeOver = %+v, %v; want %+v, false", got, won, want)
	}

	// The holder's replies keep the assignment.
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: "hi", OperatorName: "Ana", SetMode: domain.ModeHuman})
	if got := conversation(t, s, c.ID); got.AssigneeID != "usr_ana" || got.AssigneeName != "Ana" {
		t.Errorf("assignee after the holder's reply = %q %q", got.AssigneeID, got.AssigneeName)
	}

	// Releasing to the AI ends the assignment, so the next operator wins.
	changed, err := s.SetMode(ctx, c.ID, domain.ModeAI)
	noErr(t, "SetMode ai", err)
	if got := conversation(t, s, c.ID); !changed || got.Mode != domain.ModeAI || got.AssigneeID != "" || got.AssigneeName != "" {
		t.Errorf("after release: changed %v, %+v", changed, got)
	}
	got, won, err = s.TakeOver(ctx, c.ID, "usr_bo", "Bo")
	noErr(t, "TakeOver after release", err)
	if !won || got.AssigneeID != "usr_bo" || got.AssigneeName != "Bo" {
		t.Errorf("TakeOver after release = %+v, %v", got, won)
	}

	// Handing back through a message releases too.
	add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleOperator, Text: "bye", OperatorName: "Bo", SetMode: domain.ModeAI})
	if got := conversation(t, s, c.ID); got.Mode != domain.ModeAI || got.AssigneeID != "" || got.AssigneeName != "" {
		t.Errorf("after handing back by message: %+v", got)
	}

	// A takeover through the API names nobody, and still blocks TakeOver.
	_, err = s.SetMode(ctx, c.ID, domain.ModeHuman)
	noErr(t, "SetMode human", err)
	got, won, err = s.TakeOver(ctx, c.ID, "usr_ana", "Ana")
	noErr(t, "TakeOver after API takeover", err)
	if won || got.Mode != domain.ModeHuman || got.AssigneeID != "" || got.AssigneeName != "" {
		t.Errorf("TakeOver after API takeover = %+v, %v; want lost with no assignee", got, won)
	}

	_, _, err = s.TakeOver(ctx, secret.ConversationID(), "usr_ana", "Ana")
	wantErr(t, "TakeOver missing", err, domain.ErrNotFound)
}

// testTakeOverRace: when two operators take over at once exactly one wins,
// and the other is told the winner's name.
func testTakeOverRace(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	operators := []struct{ id, name string }{{"usr_ana", "Ana"}, {"usr_bo", "Bo"}}
	type result struct {
		conv domain.Conversation
		won  bool
		err  error
	}
	for round := range 20 {
		c := f.conversation(t, s, base)
		results := make([]result, len(operators))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, op := range operators {
			wg.Go(func() {
				<-start
				conv, won, err := s.TakeOver(ctx, c.ID, op.id, op.name)
				results[i] = result{conv, won, err}
			})
		}
		close(start)
		wg.Wait()

		winner := -1
		for i, r := range results {
			noErr(t, "TakeOver", r.err)
			if r.won {
				if winner >= 0 {
					t.Fatalf("round %d: both operators won", round)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		w := operators[winner]
		for i, r := range results {
			if r.conv.Mode != domain.ModeHuman || r.conv.AssigneeID != w.id || r.conv.AssigneeName != w.name {
				t.Errorf("round %d: operator %s saw %+v, want %s holding it", round, operators[i].name, r.conv, w.name)
			}
		}
		if got := conversation(t, s, c.ID); got.AssigneeID != w.id || got.AssigneeName != w.name {
			t.Errorf("round %d: stored assignee %q %q, want %s", round, got.AssigneeID, got.AssigneeName, w.name)
		}
	}
}

// searchAll pages through every conversation the filter selects.
func searchAll(t *testing.T, s store.Store, accountID string, f store.ConversationFilter) []string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("paging does not end")
		}
		page, err := s.Conversations(t.Context(), accountID, f)
		noErr(t, "Conversations", err)
		for _, c := range page.Conversations {
			ids = append(ids, c.ID)
		}
		if page.Next == "" {
			return ids
		}
		f.Before = page.Next
	}
}

func testSearch(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	other := setup(t, s, many)

	// Each conversation gets its messages; later conversations are newer.
	texts := map[string][]string{
		"order":    {"Hello, I need HELP with my order", "Sure, what is the order number?"},
		"russian":  {"Привет! Где мой ЗАКАЗ?"},
		"romanian": {"Bună ziua, ȘTIU: așa e, mulțumesc!"},
		"literal":  {"Use 50% off_code now"},
		"path":     {`saved in C:\temp\x`},
		"empty":    nil,
	}
	ids := map[string]string{}
	var order []string
	for name := range texts {
		order = append(order, name)
	}
	slices.Sort(order)
	for i, name := range order {
		c := f.conversation(t, s, base.Add(time.Duration(i)*time.Minute))
		ids[name] = c.ID
		for j, text := range texts[name] {
			role := []domain.Role{domain.RoleVisitor, domain.RoleAI}[j%2]
			add(t, s, store.NewMessage{ConversationID: c.ID, Role: role, Text: text})
		}
	}
	// The other account says the same words; they never show up.
	oc := other.conversation(t, s, base)
	add(t, s, store.NewMessage{ConversationID: oc.ID, Role: domain.RoleVisitor, Text: "привет, help with my order, 50% off_code"})

	tests := []struct {
		search string
		want   []string // conversation names
	}{
		{"help", []string{"order"}},
		{"HELP WITH", []string{"order"}},
		{"order number", []string{"order"}}, // a message other than the last
		{"ПРИВЕТ", []string{"russian"}},
		{"заказ", []string{"russian"}},
		{"заКАЗ", []string{"russian"}},
		{"ГДЕ МОЙ", []string{"russian"}},
		{"AȘA", []string{"romanian"}},
		{"Ș", []string{"romanian"}},
		{"MULȚUMESC", []string{"romanian"}},
		{"știu", []string{"romanian"}},
		{"BUNĂ", []string{"romanian"}},
		{"%", []string{"literal"}},
		{"50%", []string{"literal"}},
		{"5%o", nil}, // % is no wildcard
		{"_", []string{"literal"}},
		{"off_code", []string{"literal"}},
		{"o_f", nil}, // _ is no wildcard
		{`C:\TEMP`, []string{"path"}},
		{`\x`, []string{"path"}},
		{`\`, []string{"path"}},
		{"nothing like this", nil},
		{"", order}, // no search: all of them
	}
	for _, tt := range tests {
		var wantIDs []string
		for _, name := range tt.want {
			wantIDs = append(wantIDs, ids[name])
		}
		// Pages of one also check that the search holds across cursors.
		got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: tt.search, Limit: 1})
		slices.Sort(got)
		slices.Sort(wantIDs)
		if !slices.Equal(got, wantIDs) {
			t.Errorf("Search %q = %v, want %v", tt.search, got, wantIDs)
		}
	}

	// The search combines with the other filters.
	_, err := s.SetMode(t.Context(), ids["order"], domain.ModeHuman)
	noErr(t, "SetMode", err)
	if got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: "help", Mode: domain.ModeAI}); len(got) != 0 {
		t.Errorf("Search with mode ai = %v, want none", got)
	}
	if got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: "help", Mode: domain.ModeHuman}); !slices.Equal(got, []string{ids["order"]}) {
		t.Errorf("Search with mode human = %v, want the order conversation", got)
	}
	if got := searchAll(t, s, other.account.ID, store.ConversationFilter{Search: "привет"}); !slices.Equal(got, []string{oc.ID}) {
		t.Errorf("the other account's search = %v, want only its own %s", got, oc.ID)
	}
}

func testConversationsPerDay(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	other := setup(t, s, many)
	day := func(d int) time.Time { return time.Date(2025, time.March, d, 0, 0, 0, 0, time.UTC) }
	// Several on the edges of UTC days, and some outside every range below.
	for _, at := range []time.Time{
		day(9).Add(-time.Millisecond), // the 8th
		day(10),
		day(10).Add(12 * time.Hour),
		day(11).Add(-time.Millisecond), // still the 10th
		day(12).Add(9 * time.Hour),
		day(12).Add(23 * time.Hour),
		day(13),
		day(14).Add(-time.Millisecond), // still the 13th
		day(15).Add(-time.Millisecond), // the 14th
	} {
		f.conversation(t, s, at)
	}
	other.conversation(t, s, day(10).Add(time.Hour))
	// A zone west of UTC: its local dates differ from the UTC ones.
	west := time.FixedZone("west", -5*3600)

	tests := []struct {
		name     string
		from, to time.Time
		want     []int // counts from the UTC day of from
	}{
		{"whole days", day(10), day(14), []int{3, 0, 2, 2}},
		{"one day", day(10), day(11), []int{3}},
		{"zone of the bounds", day(10).In(west), day(14).In(west), []int{3, 0, 2, 2}},
		{"from inside a day", day(10).Add(12 * time.Hour), day(12), []int{2, 0}},
		{"to inside a day", day(12), day(13).Add(time.Hour), []int{2, 1}},
		{"no conversations", day(20), day(23), []int{0, 0, 0}},
		{"empty range", day(12), day(12), nil},
		{"reversed range", day(14), day(10), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ConversationsPerDay(ctx, f.account.ID, tt.from, tt.to)
			noErr(t, "ConversationsPerDay", err)
			if len(got) != len(tt.want) {
				t.Fatalf("ConversationsPerDay = %+v, want counts %v", got, tt.want)
			}
			y, m, d := tt.from.UTC().Date()
			first := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
			for i, dc := range got {
				if want := first.AddDate(0, 0, i); !dc.Day.Equal(want) || dc.Day.Location() != time.UTC {
					t.Errorf("day %d = %v, want %v (UTC)", i, dc.Day, want)
				}
				if dc.Count != tt.want[i] {
					t.Errorf("%s: %d conversations, want %d", dc.Day.Format(time.DateOnly), dc.Count, tt.want[i])
				}
			}
		})
	}
}
