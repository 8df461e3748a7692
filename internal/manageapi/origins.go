package manageapi

import (
	"net/http"

	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/origins"
)

// WithOrigins serves the sites agents' widgets were used from through svc.
func (a *API) WithOrigins(svc *origins.Service) *API {
	a.origins = svc
	return a
}

// ListOrigins is GET /api/v1/agents/{id}/origins: the sites the agent's
// widget was used from lately, each with whether the agent's current list
// allows it (internal/origins).
func (a *API) ListOrigins(w http.ResponseWriter, r *http.Request) {
	if a.origins == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	list, err := a.origins.Recent(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if list == nil {
		list = []origins.Seen{}
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"origins": list})
}
