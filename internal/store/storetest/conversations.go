package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

func testCreateConversation(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	// A zone other than UTC and sub-millisecond digits: the store returns
	// UTC at millisecond precision.
	at := base.In(time.FixedZone("X", 3*3600)).Add(123456789 * time.Nanosecond)
	n := f.newConversation(at)
	c, err := s.CreateConversation(ctx, n)
	noErr(t, "CreateConversation", err)
	if c.ID != n.ID || c.AgentID != n.AgentID || c.AccountID != n.AccountID || c.VisitorID != n.VisitorID ||
		c.PageURL != n.PageURL || c.Mode != domain.ModeAI || !c.LastMessageAt.IsZero() || c.LastMessage != "" {
		t.Errorf("CreateConversation = %+v from %+v", c, n)
	}
	sameTime(t, "CreatedAt", c.CreatedAt, at)

	got, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	if got != c {
		t.Errorf("Conversation = %+v, want %+v", got, c)
	}
	_, err = s.Conversation(ctx, secret.ConversationID())
	wantErr(t, "Conversation missing", err, domain.ErrNotFound)

	_, err = s.CreateConversation(ctx, n)
	wantErr(t, "CreateConversation duplicate id", err, domain.ErrConflict)
	if u := usage(t, s, f.account.ID, "2025-03"); u.Conversations != 1 {
		t.Errorf("a refused duplicate was counted: %+v", u)
	}

	missing := f.newConversation(base)
	missing.AgentID = secret.AgentID()
	_, err = s.CreateConversation(ctx, missing)
	wantErr(t, "CreateConversation missing agent", err, domain.ErrNotFound)
}

// testQuotaConcurrent: the admission is exact when many requests race.
func testQuotaConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, domain.Limits{MonthlyConversations: 20})
	const callers = 60
	var (
		wg                  sync.WaitGroup
		mu                  sync.Mutex
		ok, quota, failures int
		firstFailure        error
	)
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			_, err := s.CreateConversation(ctx, f.newConversation(base))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, domain.ErrQuota):
				quota++
			default:
				failures++
				firstFailure = err
			}
		})
	}
	close(start)
	wg.Wait()
	if ok != 20 || quota != 40 || failures != 0 {
		t.Errorf("admitted %d, refused %d, failed %d (%v); want 20, 40, 0", ok, quota, failures, firstFailure)
	}
	u := usage(t, s, f.account.ID, "2025-03")
	if want := (domain.Usage{Period: "2025-03", Conversations: 20}); u != want {
		t.Errorf("Usage = %+v, want %+v", u, want)
	}
	page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Limit: 100})
	noErr(t, "Conversations", err)
	if len(page.Conversations) != 20 {
		t.Errorf("%d conversations stored, want 20", len(page.Conversations))
	}
}

func testSpendCap(t *testing.T, s store.Store) {
	f := setup(t, s, domain.Limits{MonthlyConversations: 1, OveragePriceCents: 5, SpendCapCents: 10})
	steps := []struct {
		want  error
		usage domain.Usage
	}{
		{nil, domain.Usage{Period: "2025-03", Conversations: 1}},
		{nil, domain.Usage{Period: "2025-03", Conversations: 2, OverageConversations: 1, OverageCents: 5}},
		{nil, domain.Usage{Period: "2025-03", Conversations: 3, OverageConversations: 2, OverageCents: 10}},
		{domain.ErrSpendCap, domain.Usage{Period: "2025-03", Conversations: 3, OverageConversations: 2, OverageCents: 10}},
		{domain.ErrSpendCap, domain.Usage{Period: "2025-03", Conversations: 3, OverageConversations: 2, OverageCents: 10}},
	}
	for i, st := range steps {
		n := f.newConversation(base)
		_, err := s.CreateConversation(t.Context(), n)
		if st.want == nil {
			noErr(t, fmt.Sprintf("conversation %d", i+1), err)
		} else {
			wantErr(t, fmt.Sprintf("conversation %d", i+1), err, st.want)
			_, err := s.Conversation(t.Context(), n.ID)
			wantErr(t, "refused conversation stored", err, domain.ErrNotFound)
		}
		if u := usage(t, s, f.account.ID, "2025-03"); u != st.usage {
			t.Errorf("after conversation %d: Usage = %+v, want %+v", i+1, u, st.usage)
		}
	}

	// Overage off: past the allowance is ErrQuota.
	q := setup(t, s, domain.Limits{MonthlyConversations: 1})
	q.conversation(t, s, base)
	_, err := s.CreateConversation(t.Context(), q.newConversation(base))
	wantErr(t, "past allowance without overage", err, domain.ErrQuota)

	// Raising the limits lets the account continue.
	noErr(t, "SetLimits", s.SetLimits(t.Context(), q.account.ID, domain.Limits{MonthlyConversations: 2}))
	q.conversation(t, s, base)
}

// testPeriods: a conversation counts in the UTC month it was created in.
func testPeriods(t *testing.T, s store.Store) {
	f := setup(t, s, domain.Limits{MonthlyConversations: 1})
	f.conversation(t, s, base)
	// Late on the last day of February in UTC+3 is still February in UTC...
	f.conversation(t, s, time.Date(2025, time.March, 1, 2, 0, 0, 0, time.FixedZone("MSK", 3*3600)))
	// ...and 23:30 on 31 March in UTC-5 is April in UTC.
	f.conversation(t, s, time.Date(2025, time.March, 31, 23, 30, 0, 0, time.FixedZone("EST", -5*3600)))
	// The allowance of March is spent, whatever the other months hold.
	_, err := s.CreateConversation(t.Context(), f.newConversation(base.Add(24*time.Hour)))
	wantErr(t, "second conversation in March", err, domain.ErrQuota)

	for period, want := range map[string]int{"2025-02": 1, "2025-03": 1, "2025-04": 1, "2025-05": 0} {
		if u := usage(t, s, f.account.ID, period); u.Conversations != want || u.Period != period {
			t.Errorf("Usage(%s) = %+v, want %d conversations", period, u, want)
		}
	}
}

// testPagination: paging visits every conversation once, newest first,
// including conversations created in the same millisecond.
func testPagination(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	const total = 45
	created := map[string]time.Time{}
	for i := range total {
		// Groups of three share a timestamp, so the id must break ties.
		c := f.conversation(t, s, base.Add(time.Duration(i/3)*time.Second))
		created[c.ID] = c.CreatedAt
	}
	other := setup(t, s, many)
	other.conversation(t, s, base)

	for _, size := range []int{1, 7, 15, 44, 45, 100} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			seen := map[string]bool{}
			var prev domain.Conversation
			before := ""
			for pages := 0; ; pages++ {
				if pages > total {
					t.Fatal("paging does not end")
				}
				page, err := s.Conversations(ctx, f.account.ID, store.ConversationFilter{Limit: size, Before: before})
				noErr(t, "Conversations", err)
				if len(page.Conversations) > size {
					t.Fatalf("page of %d, limit %d", len(page.Conversations), size)
				}
				for _, c := range page.Conversations {
					if seen[c.ID] {
						t.Fatalf("%s returned twice", c.ID)
					}
					if _, ok := created[c.ID]; !ok {
						t.Fatalf("%s is not this account's", c.ID)
					}
					seen[c.ID] = true
					if prev.ID != "" && (c.CreatedAt.After(prev.CreatedAt) || c.CreatedAt.Equal(prev.CreatedAt) && c.ID > prev.ID) {
						t.Fatalf("%s (%v) after %s (%v): not newest first", c.ID, c.CreatedAt, prev.ID, prev.CreatedAt)
					}
					prev = c
				}
				if page.Next == "" {
					break
				}
				if len(page.Conversations) != size {
					t.Fatalf("short page of %d with a Next cursor", len(page.Conversations))
				}
				before = page.Next
			}
			if len(seen) != total {
				t.Errorf("saw %d conversations, want %d", len(seen), total)
			}
		})
	}
}

func testPageLimits(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	for range 105 {
		f.conversation(t, s, base)
	}
	tests := []struct{ limit, want int }{{0, 50}, {-5, 1}, {1, 1}, {100, 100}, {101, 100}, {1000, 100}}
	for _, tt := range tests {
		page, err := s.Conversations(t.Context(), f.account.ID, store.ConversationFilter{Limit: tt.limit})
		noErr(t, "Conversations", err)
		if len(page.Conversations) != tt.want || page.Next == "" {
			t.Errorf("Limit %d: %d conversations (next %q), want %d and a next page",
				tt.limit, len(page.Conversations), page.Next, tt.want)
		}
	}
}

func testFilters(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	second, _ := newAgent(t, s, f.account.ID)
	g := fixture{account: f.account, agent: second}

	var aiFirst, humanFirst, aiSecond, humanSecond []string
	for i := range 4 {
		c1 := f.conversation(t, s, base.Add(time.Duration(i)*time.Minute))
		c2 := g.conversation(t, s, base.Add(time.Duration(i)*time.Minute+time.Second))
		if i%2 == 0 {
			aiFirst, aiSecond = append(aiFirst, c1.ID), append(aiSecond, c2.ID)
			continue
		}
		for _, id := range []string{c1.ID, c2.ID} {
			_, err := s.SetMode(ctx, id, domain.ModeHuman)
			noErr(t, "SetMode", err)
		}
		humanFirst, humanSecond = append(humanFirst, c1.ID), append(humanSecond, c2.ID)
	}

	tests := []struct {
		name   string
		filter store.ConversationFilter
		want   [][]string
	}{
		{"all", store.ConversationFilter{}, [][]string{aiFirst, humanFirst, aiSecond, humanSecond}},
		{"agent", store.ConversationFilter{AgentID: f.agent.ID}, [][]string{aiFirst, humanFirst}},
		{"mode ai", store.ConversationFilter{Mode: domain.ModeAI}, [][]string{aiFirst, aiSecond}},
		{"mode human", store.ConversationFilter{Mode: domain.ModeHuman}, [][]string{humanFirst, humanSecond}},
		{"agent and mode", store.ConversationFilter{AgentID: second.ID, Mode: domain.ModeHuman}, [][]string{humanSecond}},
		{"unknown agent", store.ConversationFilter{AgentID: secret.AgentID()}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := map[string]bool{}
			for _, ids := range tt.want {
				for _, id := range ids {
					want[id] = true
				}
			}
			// Pages of 3 also check that filters hold across cursors.
			tt.filter.Limit = 3
			got := map[string]bool{}
			for {
				page, err := s.Conversations(ctx, f.account.ID, tt.filter)
				noErr(t, "Conversations", err)
				for _, c := range page.Conversations {
					if !want[c.ID] || got[c.ID] {
						t.Errorf("unexpected or repeated %s (agent %s, mode %s)", c.ID, c.AgentID, c.Mode)
					}
					got[c.ID] = true
				}
				if page.Next == "" {
					break
				}
				tt.filter.Before = page.Next
			}
			if len(got) != len(want) {
				t.Errorf("got %d conversations, want %d", len(got), len(want))
			}
		})
	}

	// Another account's filter sees none of these.
	other := setup(t, s, many)
	page, err := s.Conversations(ctx, other.account.ID, store.ConversationFilter{AgentID: f.agent.ID})
	noErr(t, "Conversations", err)
	if len(page.Conversations) != 0 {
		t.Errorf("another account sees %d conversations", len(page.Conversations))
	}
}

// testBadCursor: a cursor the store did not make is a client error, not a
// missing row.
func testBadCursor(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	f.conversation(t, s, base)
	for _, before := range []string{"!!!", "not a cursor", "%%", "eA"} {
		_, err := s.Conversations(t.Context(), f.account.ID, store.ConversationFilter{Before: before})
		if err == nil || errors.Is(err, domain.ErrNotFound) {
			t.Errorf("Before %q: error %v, want a bad-cursor error", before, err)
		}
	}
}

func testSetMode(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	c := f.conversation(t, s, base)
	steps := []struct {
		mode    domain.Mode
		changed bool
	}{
		{domain.ModeAI, false},
		{domain.ModeHuman, true},
		{domain.ModeHuman, false},
		{domain.ModeAI, true},
	}
	for _, st := range steps {
		changed, err := s.SetMode(ctx, c.ID, st.mode)
		noErr(t, "SetMode", err)
		if changed != st.changed {
			t.Errorf("SetMode(%s) changed = %v, want %v", st.mode, changed, st.changed)
		}
		got, err := s.Conversation(ctx, c.ID)
		noErr(t, "Conversation", err)
		if got.Mode != st.mode {
			t.Errorf("mode %s, want %s", got.Mode, st.mode)
		}
	}
	_, err := s.SetMode(ctx, secret.ConversationID(), domain.ModeHuman)
	wantErr(t, "SetMode missing", err, domain.ErrNotFound)
}
