package quota

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"parley/internal/domain"
)

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		limits  domain.Limits
		usage   domain.Usage
		want    domain.Usage
		wantErr error
	}{
		{"within allowance", domain.Limits{MonthlyConversations: 2}, domain.Usage{Conversations: 1},
			domain.Usage{Conversations: 2}, nil},
		{"allowance used, overage off", domain.Limits{MonthlyConversations: 2}, domain.Usage{Conversations: 2},
			domain.Usage{Conversations: 2}, domain.ErrQuota},
		{"zero allowance, overage off", domain.Limits{}, domain.Usage{},
			domain.Usage{}, domain.ErrQuota},
		{"overage within cap", domain.Limits{MonthlyConversations: 1, OveragePriceCents: 5, SpendCapCents: 10},
			domain.Usage{Conversations: 1},
			domain.Usage{Conversations: 2, OverageConversations: 1, OverageCents: 5}, nil},
		{"overage reaching cap exactly", domain.Limits{MonthlyConversations: 1, OveragePriceCents: 5, SpendCapCents: 10},
			domain.Usage{Conversations: 2, OverageConversations: 1, OverageCents: 5},
			domain.Usage{Conversations: 3, OverageConversations: 2, OverageCents: 10}, nil},
		{"overage would pass cap", domain.Limits{MonthlyConversations: 1, OveragePriceCents: 5, SpendCapCents: 10},
			domain.Usage{Conversations: 3, OverageConversations: 2, OverageCents: 10},
			domain.Usage{Conversations: 3, OverageConversations: 2, OverageCents: 10}, domain.ErrSpendCap},
		{"overage on, cap zero", domain.Limits{MonthlyConversations: 0, OveragePriceCents: 5},
			domain.Usage{}, domain.Usage{}, domain.ErrSpendCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Admit(tt.limits, tt.usage)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("usage = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBlocked(t *testing.T) {
	l := domain.Limits{MonthlyConversations: 1, OveragePriceCents: 3, SpendCapCents: 3}
	for _, tt := range []struct {
		usage  domain.Usage
		block  bool
		reason string
	}{
		{domain.Usage{}, false, ""},
		{domain.Usage{Conversations: 1}, false, ""},
		{domain.Usage{Conversations: 2, OverageConversations: 1, OverageCents: 3}, true, "spend_cap"},
	} {
		b, r := Blocked(l, tt.usage)
		if b != tt.block || r != tt.reason {
			t.Errorf("Blocked(%+v) = %v %q, want %v %q", tt.usage, b, r, tt.block, tt.reason)
		}
	}
	if b, r := Blocked(domain.Limits{}, domain.Usage{}); !b || r != "quota" {
		t.Errorf("zero limits: got %v %q, want blocked by quota", b, r)
	}
}

func TestPeriodIsUTCMonth(t *testing.T) {
	// 23:30 on Jan 31 in UTC-5 is already February in UTC.
	loc := time.FixedZone("EST", -5*3600)
	if got := Period(time.Date(2026, 1, 31, 23, 30, 0, 0, loc)); got != "2026-02" {
		t.Fatalf("Period = %q, want 2026-02", got)
	}
}

// Each threshold is crossed by exactly one admission on the way from no
// usage to the spend cap, at the counts the rule names (80 % rounded up).
func TestCrossed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		l    domain.Limits
		want map[int][]string // conversation number → thresholds it crosses
	}{
		{domain.Limits{MonthlyConversations: 100}, map[int][]string{80: {ThresholdAllowance80}, 100: {ThresholdAllowance100}}},
		{domain.Limits{MonthlyConversations: 10}, map[int][]string{8: {ThresholdAllowance80}, 10: {ThresholdAllowance100}}},
		{domain.Limits{MonthlyConversations: 3}, map[int][]string{3: {ThresholdAllowance80, ThresholdAllowance100}}}, // 2.4 → 3
		{domain.Limits{MonthlyConversations: 5, OveragePriceCents: 10, SpendCapCents: 25}, map[int][]string{4: {ThresholdAllowance80}, 5: {ThresholdAllowance100}, 7: {ThresholdSpendCap}}},
		// A cap below one conversation's price: full as soon as the allowance is.
		{domain.Limits{MonthlyConversations: 2, OveragePriceCents: 10, SpendCapCents: 0}, map[int][]string{2: {ThresholdAllowance80, ThresholdAllowance100, ThresholdSpendCap}}},
		{domain.Limits{MonthlyConversations: 0, OveragePriceCents: 10, SpendCapCents: 10}, map[int][]string{1: {ThresholdSpendCap}}},
	} {
		u := domain.Usage{Period: "2026-05"}
		for i := 1; ; i++ {
			next, err := Admit(tc.l, u)
			if err != nil {
				break
			}
			if got := Crossed(tc.l, u, next); fmt.Sprint(got) != fmt.Sprint(tc.want[i]) {
				t.Errorf("%+v: conversation %d crossed %v, want %v", tc.l, i, got, tc.want[i])
			}
			u = next
		}
	}
}
