package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/quota"
	"parley/internal/store"
)

// crossing creates the conversation and returns the thresholds it
// reported crossing.
func crossing(t *testing.T, s store.Store, n store.NewConversation) ([]domain.UsageThreshold, error) {
	t.Helper()
	var got []domain.UsageThreshold
	n.Crossed = &got
	_, err := s.CreateConversation(t.Context(), n)
	return got, err
}

func names(ts []domain.UsageThreshold) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Threshold)
	}
	return out
}

// Each usage threshold (80 % and 100 % of the allowance, the spend cap)
// is reported by exactly the conversation that crossed it, once per
// account and period, with the usage just after it; a new month reports
// them again, and lowering then raising the limits does not report one
// twice.
func testUsageThresholds(t *testing.T, s store.Store) {
	// Allowance 5 (80 % is 4), overage 10 cents, cap 20: conversations
	// 6 and 7 are overage and the 7th fills the cap.
	l := domain.Limits{MonthlyConversations: 5, OveragePriceCents: 10, SpendCapCents: 20}
	f := setup(t, s, l)
	want := map[int][]string{4: {quota.ThresholdAllowance80}, 5: {quota.ThresholdAllowance100}, 7: {quota.ThresholdSpendCap}}
	for i := 1; i <= 7; i++ {
		got, err := crossing(t, s, f.newConversation(base))
		noErr(t, fmt.Sprintf("conversation %d", i), err)
		if !slices.Equal(names(got), want[i]) {
			t.Fatalf("conversation %d crossed %v, want %v", i, names(got), want[i])
		}
		if len(got) == 1 {
			u := got[0].Usage
			if u.Period != "2025-03" || u.Conversations != i || got[0].Limits != l {
				t.Fatalf("conversation %d: threshold data %+v", i, got[0])
			}
			if got[0].Threshold == quota.ThresholdSpendCap && u.OverageCents != 20 {
				t.Fatalf("spend cap reached at %d cents, want 20", u.OverageCents)
			}
		}
	}
	// Refused now: nothing reported, and the Crossed slice is left empty.
	got, err := crossing(t, s, f.newConversation(base))
	wantErr(t, "conversation past the cap", err, domain.ErrSpendCap)
	if len(got) != 0 {
		t.Fatalf("a refused conversation crossed %v", names(got))
	}

	// The next month starts again.
	next := base.AddDate(0, 1, 0)
	for i := 1; i <= 5; i++ {
		got, err := crossing(t, s, f.newConversation(next))
		noErr(t, "conversation next month", err)
		if i >= 4 && !slices.Equal(names(got), want[i]) || i < 4 && len(got) != 0 {
			t.Fatalf("next month, conversation %d crossed %v", i, names(got))
		}
		if len(got) == 1 && got[0].Usage.Period != "2025-04" {
			t.Fatalf("next month's threshold in period %q", got[0].Usage.Period)
		}
	}

	// Raising the allowance mid-month and filling it again does not
	// report allowance_80 or allowance_100 a second time in the period.
	g := setup(t, s, domain.Limits{MonthlyConversations: 1})
	got, err = crossing(t, s, g.newConversation(base))
	noErr(t, "first conversation", err)
	if !slices.Equal(names(got), []string{quota.ThresholdAllowance80, quota.ThresholdAllowance100}) {
		t.Fatalf("an allowance of 1 crossed %v, want both allowance thresholds at once", names(got))
	}
	err = s.SetLimits(t.Context(), g.account.ID, domain.Limits{MonthlyConversations: 2})
	noErr(t, "SetLimits", err)
	got, err = crossing(t, s, g.newConversation(base))
	noErr(t, "second conversation", err)
	if len(got) != 0 {
		t.Fatalf("thresholds reported twice in a period: %v", names(got))
	}

	// Without Crossed, CreateConversation still marks: the threshold is
	// not reported later by another conversation.
	h := setup(t, s, domain.Limits{MonthlyConversations: 2})
	h.conversation(t, s, base)
	h.conversation(t, s, base) // crosses both, unreported
	err = s.SetLimits(t.Context(), h.account.ID, domain.Limits{MonthlyConversations: 3})
	noErr(t, "SetLimits", err)
	got, err = crossing(t, s, h.newConversation(base))
	noErr(t, "third conversation", err)
	if len(got) != 0 {
		t.Fatalf("thresholds reported twice in a period: %v", names(got))
	}
}

// Concurrent conversations (as from several instances) report each
// threshold exactly once between them.
func testUsageThresholdsConcurrent(t *testing.T, s store.Store) {
	const n = 24
	f := setup(t, s, domain.Limits{MonthlyConversations: 10, OveragePriceCents: 5, SpendCapCents: 25})
	var (
		mu    sync.Mutex
		seen  = map[string]int{}
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var got []domain.UsageThreshold
			c := f.newConversation(base)
			c.Crossed = &got
			_, err := s.CreateConversation(t.Context(), c)
			if err != nil && !errors.Is(err, domain.ErrSpendCap) {
				t.Errorf("CreateConversation: %v", err)
			}
			mu.Lock()
			for _, th := range got {
				seen[th.Threshold]++
			}
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	want := map[string]int{quota.ThresholdAllowance80: 1, quota.ThresholdAllowance100: 1, quota.ThresholdSpendCap: 1}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("thresholds reported %v, want each once", seen)
	}
}
