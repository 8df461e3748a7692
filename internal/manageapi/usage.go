package manageapi

import (
	"net/http"
	"time"

	"parley/internal/httpx"
	"parley/internal/quota"
)

type usageResponse struct {
	Period               string `json:"period"`
	Conversations        int    `json:"conversations"`
	Allowance            int    `json:"allowance"`
	OverageConversations int    `json:"overage_conversations"`
	OverageCents         int64  `json:"overage_cents"`
	OveragePriceCents    int64  `json:"overage_price_cents"`
	SpendCapCents        int64  `json:"spend_cap_cents"`
	Blocked              bool   `json:"blocked"`
	Reason               string `json:"reason,omitempty"` // quota or spend_cap while blocked
	// The LLM tokens of the AI replies stored this period (docs/api.md).
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Usage reports the current UTC month. blocked says whether the next new
// conversation would be refused.
func (a *API) Usage(w http.ResponseWriter, r *http.Request) {
	acc := account(r)
	period := quota.Period(time.Now())
	u, err := a.store.Usage(r.Context(), acc.ID, period)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	blocked, reason := quota.Blocked(acc.Limits, u)
	httpx.JSON(w, http.StatusOK, usageResponse{
		Period: period, Conversations: u.Conversations, Allowance: acc.Limits.MonthlyConversations,
		OverageConversations: u.OverageConversations, OverageCents: u.OverageCents,
		OveragePriceCents: acc.Limits.OveragePriceCents, SpendCapCents: acc.Limits.SpendCapCents,
		Blocked: blocked, Reason: reason,
		PromptTokens: u.Tokens.Prompt, CompletionTokens: u.Tokens.Completion,
	})
}
