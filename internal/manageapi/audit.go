package manageapi

import (
	"net/http"
	"strconv"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/store"
)

// auditEntry is one entry of GET /api/v1/audit. at, actor, action and
// target are the issue's; the rest say more about the actor and number
// the entry for paging.
type auditEntry struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Actor     string    `json:"actor"`      // a user's email, an API token's name, "system"
	ActorType string    `json:"actor_type"` // user, api_token, system
	ActorID   string    `json:"actor_id"`   // the user's or the token's id; "" for the system
	IP        string    `json:"ip"`         // "" when unknown
	Action    string    `json:"action"`     // conversation.takeover, key.rotate, ... (docs/api.md)
	Target    string    `json:"target"`     // "kind:id": conversation:cv_1, agent:ag_1, ...
}

// Audit lists the account's audit log, newest first: limit (1–200,
// default 50) entries with id below before, of one action when action is
// given; next_before is the next page's before, absent on the last page.
func (a *API) Audit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := audit.Filter{Action: q.Get("action")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxAuditPageSize {
			httpx.Error(w, r, domain.Invalid("limit must be a whole number from 1 to 200"))
			return
		}
		f.Limit = n
	}
	if s := q.Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			httpx.Error(w, r, domain.Invalid("before must be the id of an entry"))
			return
		}
		f.Before = n
	}
	page, err := a.audit.List(r.Context(), account(r).ID, f)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := struct {
		Entries    []auditEntry `json:"entries"`
		NextBefore int64        `json:"next_before,omitempty"`
	}{Entries: make([]auditEntry, 0, len(page.Entries)), NextBefore: page.Next}
	for _, e := range page.Entries {
		out.Entries = append(out.Entries, auditEntry{
			ID: e.Seq, At: e.At, Actor: e.Actor, ActorType: e.ActorType, ActorID: e.ActorID,
			IP: e.IP, Action: e.Action, Target: e.Target,
		})
	}
	httpx.JSON(w, http.StatusOK, out)
}
