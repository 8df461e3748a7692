package manageapi

import (
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/httpx"
)

type keyJSON struct {
	Key       string    `json:"key"`
	AgentID   string    `json:"agent_id"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
}

func toKeyJSON(k domain.WidgetKey) keyJSON {
	return keyJSON{Key: k.Key, AgentID: k.AgentID, Active: k.Active, CreatedAt: k.CreatedAt}
}

// CreateKey rotates the agent's widget key: the new key is active and the
// agent's others are deactivated (agentadmin.Service.NewKey).
func (a *API) CreateKey(w http.ResponseWriter, r *http.Request) {
	k, err := a.agents.NewKey(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, toKeyJSON(k))
}

func (a *API) UpdateKey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Active *bool `json:"active"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Active == nil {
		httpx.Error(w, r, domain.Invalid("active is required (true or false)"))
		return
	}
	k, err := a.agents.SetKeyActive(r.Context(), account(r).ID, r.PathValue("key"), *in.Active)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toKeyJSON(k))
}
