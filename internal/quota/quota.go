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
