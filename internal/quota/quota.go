// Package quota holds the rule that admits or refuses a new conversation
// against an account's monthly allowance and overage spend cap. It is pure:
// stores call Admit inside the transaction that creates the conversation, so
// the check and the increment are one atomic step in the database.
package quota

import (
	"time"

	"parley/internal/domain"
)

// Period names the billing period that contains t: its UTC calendar month.
func Period(t time.Time) string { return t.UTC().Format("2006-01") }

// Admit decides whether one more conversation may start, given the account's
// limits and its usage so far in the period. On success it returns the usage
// with the new conversation counted; otherwise domain.ErrQuota or
// domain.ErrSpendCap and the usage unchanged.
//
// The rule: conversations within the allowance are free. Past it, overage
// must be on (a price above zero) or the answer is ErrQuota; an overage
// conversation whose price would take the period's overage cost past the
// spend cap is ErrSpendCap.
func Admit(l domain.Limits, u domain.Usage) (domain.Usage, error) {
	if u.Conversations < l.MonthlyConversations {
		u.Conversations++
		return u, nil
	}
	if l.OveragePriceCents <= 0 {
		return u, domain.ErrQuota
	}
	if u.OverageCents+l.OveragePriceCents > l.SpendCapCents {
		return u, domain.ErrSpendCap
	}
	u.Conversations++
	u.OverageConversations++
	u.OverageCents += l.OveragePriceCents
	return u, nil
}

// Blocked reports whether the next conversation would be refused, and why
// ("quota" or "spend_cap"; "" when it would be admitted).
func Blocked(l domain.Limits, u domain.Usage) (bool, string) {
	_, err := Admit(l, u)
	switch err {
	case domain.ErrQuota:
		return true, "quota"
	case domain.ErrSpendCap:
		return true, "spend_cap"
	}
	return false, ""
}

// The usage thresholds an account is told of (the usage.threshold
// webhook event), each at most once per account and period.
const (
	// ThresholdAllowance80: the period's conversations reached 80 % of the
	// allowance (rounded up: 80 of 100, 9 of 10, 1 of 1).
	ThresholdAllowance80 = "allowance_80"
	// ThresholdAllowance100: they reached the allowance; the next
	// conversation is overage or refused (domain.ErrQuota).
	ThresholdAllowance100 = "allowance_100"
	// ThresholdSpendCap: the overage cost reached the spend cap, so that
	// the next conversation would be refused (domain.ErrSpendCap).
	ThresholdSpendCap = "spend_cap"
)

// Crossed lists the thresholds that admitting one conversation took the
// usage across, from before to after (what Admit returned), in the order
// above. An allowance of zero has no allowance thresholds; the spend cap
// counts only while overage is on.
func Crossed(l domain.Limits, before, after domain.Usage) []string {
	var out []string
	if m := l.MonthlyConversations; m > 0 {
		at80 := (m*4 + 4) / 5 // ceil(0.8 m)
		if before.Conversations < at80 && after.Conversations >= at80 {
			out = append(out, ThresholdAllowance80)
		}
		if before.Conversations < m && after.Conversations >= m {
			out = append(out, ThresholdAllowance100)
		}
	}
	if p := l.OveragePriceCents; p > 0 && after.Conversations >= l.MonthlyConversations {
		full := func(u domain.Usage) bool {
			return u.Conversations >= l.MonthlyConversations && u.OverageCents+p > l.SpendCapCents
		}
		if !full(before) && full(after) {
			out = append(out, ThresholdSpendCap)
		}
	}
	return out
}
