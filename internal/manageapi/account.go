package manageapi

import (
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/retention"
)

// WithRetention serves the account's settings (GET and PATCH
// /api/v1/account) through svc; without it those routes answer 404.
func (a *API) WithRetention(svc *retention.Service) *API {
	a.retention = svc
	return a
}

// accountJSON is the account's settings: today its retention (issue 18).
type accountJSON struct {
	ID            string    `json:"id"`
	RetentionDays int       `json:"retention_days"`
	NextPurgeAt   time.Time `json:"next_purge_at"`
}

func toAccountJSON(id string, s retention.Setting) accountJSON {
	return accountJSON{ID: id, RetentionDays: s.Days, NextPurgeAt: s.NextPurge.UTC()}
}

// GetAccount: the account's settings.
func (a *API) GetAccount(w http.ResponseWriter, r *http.Request) {
	if a.retention == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	id := account(r).ID
	s, err := a.retention.Get(r.Context(), id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toAccountJSON(id, s))
}

// UpdateAccount changes the settings given: retention_days, 0 (keep
// forever) or 1 to retention.MaxDays.
func (a *API) UpdateAccount(w http.ResponseWriter, r *http.Request) {
	if a.retention == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	var in struct {
		RetentionDays *int `json:"retention_days"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	id := account(r).ID
	var s retention.Setting
	var err error
	if in.RetentionDays != nil {
		s, err = a.retention.Set(r.Context(), id, *in.RetentionDays)
	} else {
		s, err = a.retention.Get(r.Context(), id)
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toAccountJSON(id, s))
}
